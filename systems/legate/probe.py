"""Whether legate's runtime loads in this interpreter: prints nothing and exits 0 when it does,
else one line saying why (the configure step records it as the LEGATE component's reason)."""
import sys

try:
    import legate.core  # noqa: F401  (loads liblegate, Legion and Realm)
except ImportError as exc:
    import importlib.util
    if importlib.util.find_spec("legate") is None:
        print("legate is not installed, and its PyPI wheel (26.6.1) would not load here without the "
              "NVIDIA driver's libcuda.so.1: it is built for CUDA (systems/legate/README.md)")
    else:
        # The PyPI wheel is CUDA-built: liblegate.so, liblegion-legate.so and librealm-legate.so
        # name libcuda.so.1 (the NVIDIA driver's) as a needed library.
        print(f"legate cannot load here: {type(exc).__name__}: {exc} (the PyPI wheel is built "
              "for CUDA and needs the NVIDIA driver's libcuda.so.1)")
    sys.exit(1)
