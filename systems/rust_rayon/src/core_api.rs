//! Hand-written declarations of the few functions of the core's C API
//! (core/include/taskbench/taskbench.h) that this system calls, with its plain-data types.
//! The layouts must match the header: #[repr(C)] fields in the same order, C enums as int.
#![allow(dead_code)] // some fields are only read by the core

use std::os::raw::{c_char, c_int, c_long, c_void};

#[repr(C)]
#[derive(Clone, Copy)]
pub struct Kernel {
    pub kind: c_int,
    pub iterations: c_long,
    pub samples: c_int,
    pub imbalance: f64,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct TaskGraph {
    pub graph_index: c_long,
    pub timesteps: c_long,
    pub max_width: c_long,
    pub dependence: c_int,
    pub radix: c_long,
    pub period: c_long,
    pub fraction_connected: f64,
    pub kernel: Kernel,
    pub output_bytes_per_task: usize,
    pub scratch_bytes_per_task: usize,
    pub nb_fields: c_int,
}

/// An inclusive range of points [start, end].
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct Interval {
    pub start: c_long,
    pub end: c_long,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct App {
    imp: *mut c_void,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct TaskGraphList {
    imp: *mut c_void,
}

#[repr(C)]
pub struct Flag {
    pub name: *const c_char,
    pub value_name: *const c_char,
    pub help: *const c_char,
    pub min_value: c_long,
}

extern "C" {
    pub fn app_create_for_system(argc: c_int, argv: *mut *mut c_char, system_name: *const c_char,
                                 flags: *const Flag, n_flags: c_int, width_defaults_to_cores: bool) -> App;
    pub fn app_destroy(app: App);
    pub fn app_task_graphs(app: App) -> TaskGraphList;
    pub fn app_display(app: App);
    pub fn app_flag_value(app: App, name: *const c_char, default_value: c_long) -> c_long;
    pub fn app_set_parallelism(app: App, ranks: c_long, threads_per_rank: c_long);
    pub fn app_report_timing(app: App, elapsed_seconds: f64);

    pub fn task_graph_list_destroy(graphs: TaskGraphList);
    pub fn task_graph_list_num_task_graphs(graphs: TaskGraphList) -> c_long;
    pub fn task_graph_list_task_graph(graphs: TaskGraphList, index: c_long) -> TaskGraph;

    pub fn task_graph_offset_at_timestep(graph: TaskGraph, timestep: c_long) -> c_long;
    pub fn task_graph_width_at_timestep(graph: TaskGraph, timestep: c_long) -> c_long;
    pub fn task_graph_max_intervals(graph: TaskGraph) -> c_long;
    pub fn task_graph_max_dependencies(graph: TaskGraph) -> c_long;
    pub fn task_graph_task_dependencies_into(graph: TaskGraph, timestep: c_long, point: c_long,
                                             out: *mut Interval) -> c_long;
    pub fn task_graph_task_successors_into(graph: TaskGraph, timestep: c_long, point: c_long,
                                           out: *mut Interval) -> c_long;
    pub fn task_graph_contains_point(graph: TaskGraph, timestep: c_long, point: c_long) -> bool;
    pub fn task_graph_execute_point_scratch(graph: TaskGraph, timestep: c_long, point: c_long,
                                            output_ptr: *mut c_char, output_bytes: usize,
                                            input_ptr: *const *const c_char, input_bytes: *const usize,
                                            n_inputs: usize, scratch_ptr: *mut c_char, scratch_bytes: usize);
    pub fn task_graph_check_unread_output(graph: TaskGraph, timestep: c_long, point: c_long,
                                          output_ptr: *const c_char, output_bytes: usize);
    pub fn task_graph_prepare_scratch(scratch_ptr: *mut c_char, scratch_bytes: usize);

    pub fn taskbench_wall_time() -> f64;
}
