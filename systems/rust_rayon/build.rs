//! Links the taskbench core (a C++ static library) into the binary. The CMake build runs cargo
//! and says where the core and the libraries it needs are:
//!   TASKBENCH_CORE_LIB    the core's static library (libtaskbench.a)
//!   TASKBENCH_LINK_LIBS   shared libraries the core links (OpenBLAS), full paths, ';'-separated
use std::env;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-env-changed=TASKBENCH_CORE_LIB");
    println!("cargo:rerun-if-env-changed=TASKBENCH_LINK_LIBS");
    let core = env::var("TASKBENCH_CORE_LIB")
        .expect("TASKBENCH_CORE_LIB is not set: rust_rayon is built by the CMake build (scripts/build.sh)");
    let core = Path::new(&core);
    println!("cargo:rerun-if-changed={}", core.display());
    let name = core.file_stem().and_then(|s| s.to_str()).and_then(|s| s.strip_prefix("lib"))
        .expect("TASKBENCH_CORE_LIB must name a lib<name>.a");
    println!("cargo:rustc-link-search=native={}", core.parent().unwrap().display());
    println!("cargo:rustc-link-lib=static={name}");
    println!("cargo:rustc-link-lib=dylib=stdc++");
    // OpenBLAS must find the core's locked blas_memory_alloc (its dgemm kernel, built in the core library).
    println!("cargo:rustc-link-arg=-Wl,--export-dynamic-symbol=blas_memory_alloc");
    for lib in env::var("TASKBENCH_LINK_LIBS").unwrap_or_default().split(';').filter(|l| !l.is_empty()) {
        let lib = Path::new(lib);
        // After the core on the link line, and found at run time where it lies (openblas-serial
        // is outside the loader's default paths).
        println!("cargo:rustc-link-arg={}", lib.display());
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib.parent().unwrap().display());
    }
}
