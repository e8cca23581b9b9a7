//! The core's application (flags, graphs, summary) through its C API: argv goes to the core's
//! parser unchanged, so this binary takes exactly the flags every system takes.

use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int, c_long};
use std::os::unix::ffi::OsStringExt;

use crate::core_api::{self, Flag, TaskGraph};

pub struct App {
    app: core_api::App,
}

/// A flag's name as the core wants it (a NUL-terminated constant).
pub const WORKER: &CStr = c"-worker";
pub const DATAFLOW: &CStr = c"-dataflow";

impl App {
    /// Parses argv; the core exits with status 2 and one line on an invalid flag, 0 on -h.
    pub fn new(system: &CStr, flags: &[Flag]) -> App {
        // Bytes, not text: a non-UTF-8 argument reaches the parser as the C++ systems see it.
        let args: Vec<CString> = std::env::args_os()
            .map(|a| CString::new(a.into_vec()).unwrap_or_else(|_| unreachable!("argv holds no NUL")))
            .collect();
        let mut argv: Vec<*mut c_char> = args.iter().map(|a| a.as_ptr() as *mut c_char).collect();
        argv.push(std::ptr::null_mut());
        // SAFETY: argv and flags outlive the call; the core copies what it keeps.
        let app = unsafe {
            core_api::app_create_for_system(args.len() as c_int, argv.as_mut_ptr(), system.as_ptr(),
                                            flags.as_ptr(), flags.len() as c_int, false)
        };
        App { app }
    }

    pub fn flag(&self, name: &CStr, default_value: i64) -> i64 {
        // SAFETY: name is NUL-terminated.
        unsafe { core_api::app_flag_value(self.app, name.as_ptr(), default_value as c_long) as i64 }
    }

    pub fn graphs(&self) -> Vec<TaskGraph> {
        // SAFETY: the list is read, then destroyed; the graphs are plain data.
        unsafe {
            let list = core_api::app_task_graphs(self.app);
            let graphs = (0..core_api::task_graph_list_num_task_graphs(list))
                .map(|k| core_api::task_graph_list_task_graph(list, k))
                .collect();
            core_api::task_graph_list_destroy(list);
            graphs
        }
    }

    pub fn set_parallelism(&self, ranks: i64, threads_per_rank: i64) {
        unsafe { core_api::app_set_parallelism(self.app, ranks as c_long, threads_per_rank as c_long) }
    }

    pub fn display(&self) {
        unsafe { core_api::app_display(self.app) }
    }

    /// Checks every task ran once, prints the summary, writes -json and -trace.
    pub fn report(&self, elapsed_seconds: f64) {
        unsafe { core_api::app_report_timing(self.app, elapsed_seconds) }
    }
}

impl Drop for App {
    fn drop(&mut self) {
        unsafe { core_api::app_destroy(self.app) }
    }
}

pub fn wall_time() -> f64 {
    unsafe { core_api::taskbench_wall_time() }
}
