//! rust_rayon: rayon over the taskbench core's C API. Per timestep one rayon scope gets a task
//! (`spawn`) per point of every graph's row, graphs interleaved within the timestep; the scope
//! returns once all of them ran, which orders row t-1's outputs before row t reads them.
//! -dataflow: no barrier between rows; dependency counting on rayon's pool (dataflow.rs).

mod app;
mod buffers;
mod core_api;
mod dataflow;

use std::process::exit;

use app::{wall_time, App, DATAFLOW, WORKER};
use buffers::GraphBuffers;
use dataflow::Dataflow;

/// The most threads -worker allows (taskbench::kMaxWorkerThreads of the C++ systems): the C
/// API's flags have no upper bound, so the bound is checked here, with the core's wording.
const MAX_WORKER_THREADS: i64 = 4096;

fn main() {
    let flags = [
        core_api::Flag {
            name: WORKER.as_ptr(),
            value_name: c"N".as_ptr(),
            help: c"rayon threads (default: cores)".as_ptr(),
            min_value: 1,
        },
        core_api::Flag {
            name: DATAFLOW.as_ptr(),
            value_name: c"".as_ptr(), // a switch
            help: c"dependency counting, no barrier between rows".as_ptr(),
            min_value: 0,
        },
    ];
    let app = App::new(c"rust_rayon", &flags);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as i64;
    let workers = app.flag(WORKER, cores);
    if workers > MAX_WORKER_THREADS {
        eprintln!("taskbench: -worker: invalid value '{workers}'; expected an integer from 1 to {MAX_WORKER_THREADS}");
        exit(2);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(workers as usize)
        .build()
        .unwrap_or_else(|e| {
            eprintln!("taskbench: rust_rayon: cannot start {workers} rayon threads: {e}");
            exit(1)
        });
    app.set_parallelism(1, workers);
    app.display();

    let buffers: Vec<GraphBuffers> = app.graphs().into_iter().map(GraphBuffers::new).collect();
    let steps = buffers.iter().map(GraphBuffers::timesteps).max().unwrap_or(0);

    if app.flag(DATAFLOW, 0) != 0 {
        // The counts are the graph's shape: set before the timing, as a flow graph is built.
        let dataflow = Dataflow::new(&buffers);
        let start = wall_time();
        pool.install(|| dataflow.run());
        let elapsed = wall_time() - start;
        buffers.iter().for_each(GraphBuffers::check_last_row);
        app.report(elapsed);
        return;
    }
    let start = wall_time();
    // install: the loop itself runs on a pool thread, which works on the row while it waits.
    pool.install(|| {
        for t in 0..steps {
            rayon::scope(|row| {
                for b in buffers.iter().filter(|b| t < b.timesteps()) {
                    for i in b.row(t) {
                        row.spawn(move |_| b.run(t, i));
                    }
                }
            });
        }
    });
    let elapsed = wall_time() - start;
    buffers.iter().for_each(GraphBuffers::check_last_row);
    app.report(elapsed);
}
