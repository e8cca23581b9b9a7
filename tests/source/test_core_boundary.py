"""Nothing outside core/ reaches into the core's private sources (core_boundary.py)."""
from pathlib import Path

from core_boundary import violations

REPO = Path(__file__).resolve().parents[2]


def test_no_file_outside_the_core_uses_its_private_sources():
    found = violations(REPO)
    assert not found, "core/src is private: use core/include/taskbench/*.h instead\n" + "\n".join(map(str, found))


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def test_each_way_in_is_caught(tmp_path):
    root = _tree(tmp_path, {
        "core/src/fault.h": "",
        "core/src/kernels/kernels.h": "",
        "core/src/use.cc": '#include "fault.h"\n',  # the core itself may
        "systems/a/main.cc": '#include "taskbench/app.h"\n#include "fault.h"\n',
        "bench/peak.cc": '#include "../core/src/kernels/kernels.h"\n',
        "python/ext/CMakeLists.txt": "target_include_directories(x PRIVATE ${P}/core/src)\n",
        "systems/b/build.py": "flags = ['-I' + str(ROOT / 'core/src')]\n",
        "build/x/gen.cc": '#include "fault.h"\n',  # a build tree is not the project's
        "docs/a.md": "core/src/fault.h\n",
    })
    found = {(str(v.path), v.line) for v in violations(root)}
    assert found == {("systems/a/main.cc", 2), ("bench/peak.cc", 1), ("python/ext/CMakeLists.txt", 1),
                     ("systems/b/build.py", 1)}


def test_a_header_of_the_same_name_beside_the_file_is_its_own(tmp_path):
    root = _tree(tmp_path, {"core/src/report.h": "", "tools/t/report.h": "", "tools/t/report.cc": '#include "report.h"\n'})
    assert violations(root) == []
