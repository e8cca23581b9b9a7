"""Installs the `taskbench` command into the project's venv, over this checkout: a .pth file puts
python/ on the venv's path (editable: an edit needs no reinstall, and the package finds build/
from where it lies, taskbench/registry/locations.py), and .venv/bin/taskbench runs taskbench.cli. Rewrites
either file only when it differs, so a second run changes nothing.

Run by scripts/install-deps.sh with the venv's interpreter."""
import sys
import sysconfig
from pathlib import Path

root = Path(__file__).resolve().parents[1]
site = Path(sysconfig.get_paths()["purelib"])
files = {
    site / "taskbench-checkout.pth": f"{root / 'python'}\n",
    Path(sys.executable).parent / "taskbench": f"""#!{sys.executable}
# The taskbench command of the checkout {root} (scripts/install-command.py).
import sys

from taskbench.cli import main

sys.exit(main())
""",
}
for path, text in files.items():
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
        print(f"install-command: wrote {path}")
    if path.name == "taskbench":
        path.chmod(0o755)
