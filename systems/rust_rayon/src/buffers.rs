//! One graph's storage, laid out as the C++ systems' PointBuffers: two output fields per
//! column (task (t, i) writes field t mod 2, so row t-1 stays readable while row t is written),
//! one scratch buffer per column, columns 128 bytes apart so that neighbours written by
//! different threads share no cache line pair.

use std::cell::RefCell;
use std::os::raw::c_char;

use crate::core_api::{self, Interval, TaskGraph};

#[repr(C, align(128))]
#[derive(Clone, Copy)]
struct Line([u8; 128]);

fn round_up(bytes: usize) -> usize {
    bytes.div_ceil(128) * 128
}

fn allocate(bytes: usize) -> Vec<Line> {
    vec![Line([0; 128]); bytes.div_ceil(128).max(1)]
}

pub struct GraphBuffers {
    pub graph: TaskGraph,
    stride: usize,
    outputs: Vec<Line>,
    scratch: Vec<Line>,
    outputs_base: *mut u8,
    scratch_base: *mut u8,
}

// Tasks share the buffers through raw pointers: within a timestep each task writes only its
// own output slot (field t mod 2, its column) and its column's scratch, and reads row t-1's
// field, which no task of row t writes; the scope closing each timestep orders the rows (with
// -dataflow, the counted edges of dataflow.rs, which also order the reuse of the fields).
unsafe impl Sync for GraphBuffers {}
unsafe impl Send for GraphBuffers {}

// Per-thread space for gathering a task's inputs (no allocation per task).
#[derive(Default)]
struct Gather {
    intervals: Vec<Interval>,
    inputs: Vec<*const c_char>,
    sizes: Vec<usize>,
}

thread_local! {
    static GATHER: RefCell<Gather> = RefCell::new(Gather::default());
}

impl GraphBuffers {
    pub fn new(graph: TaskGraph) -> Self {
        let width = graph.max_width as usize;
        let stride = round_up(graph.output_bytes_per_task);
        let mut outputs = allocate(stride * width * 2);
        let mut scratch = allocate(graph.scratch_bytes_per_task * width);
        let outputs_base = outputs.as_mut_ptr() as *mut u8;
        let scratch_base = scratch.as_mut_ptr() as *mut u8;
        if graph.scratch_bytes_per_task > 0 {
            // SAFETY: scratch holds scratch_bytes_per_task * width bytes.
            unsafe { core_api::task_graph_prepare_scratch(scratch_base as *mut c_char, graph.scratch_bytes_per_task * width) };
        }
        GraphBuffers { graph, stride, outputs, scratch, outputs_base, scratch_base }
    }

    pub fn timesteps(&self) -> i64 {
        self.graph.timesteps as i64
    }

    /// The points of row t: offset..offset + width.
    pub fn row(&self, t: i64) -> std::ops::Range<i64> {
        // SAFETY: plain queries on a graph the core made.
        let (offset, width) = unsafe {
            (core_api::task_graph_offset_at_timestep(self.graph, t as _) as i64,
             core_api::task_graph_width_at_timestep(self.graph, t as _) as i64)
        };
        offset..offset + width
    }

    fn output(&self, t: i64, i: i64) -> *mut u8 {
        let slot = (t as usize % 2) * self.graph.max_width as usize + i as usize;
        debug_assert!((slot + 1) * self.stride <= self.outputs.len() * 128);
        // SAFETY: slot < 2 * max_width, the allocation's size in strides.
        unsafe { self.outputs_base.add(slot * self.stride) }
    }

    /// After the run: every output of the last timestep, to the core's check.
    pub fn check_last_row(&self) {
        let t = self.timesteps() - 1;
        for i in self.row(t) {
            // SAFETY: output(t, i) holds output_bytes_per_task bytes of this graph's buffers.
            unsafe {
                core_api::task_graph_check_unread_output(self.graph, t as _, i as _, self.output(t, i) as *const c_char,
                                                         self.graph.output_bytes_per_task);
            }
        }
    }

    /// Runs task (t, i): gathers pointers to its inputs in row t-1 and calls the core.
    pub fn run(&self, t: i64, i: i64) {
        let g = self.graph;
        GATHER.with(|cell| {
            let mut gather = cell.borrow_mut();
            let Gather { intervals, inputs, sizes } = &mut *gather;
            // SAFETY: the capacities are the core's bounds for this graph.
            unsafe {
                intervals.resize((core_api::task_graph_max_intervals(g) as usize).max(1), Interval::default());
                let n = core_api::task_graph_task_dependencies_into(g, t as _, i as _, intervals.as_mut_ptr());
                inputs.clear();
                for d in &intervals[..n as usize] {
                    for j in d.start..=d.end {
                        inputs.push(self.output(t - 1, j as i64) as *const c_char);
                    }
                }
                sizes.clear();
                sizes.resize(inputs.len(), g.output_bytes_per_task);
                let scratch_bytes = g.scratch_bytes_per_task;
                debug_assert!(scratch_bytes * (i as usize + 1) <= self.scratch.len() * 128 || scratch_bytes == 0);
                core_api::task_graph_execute_point_scratch(
                    g, t as _, i as _, self.output(t, i) as *mut c_char, g.output_bytes_per_task,
                    inputs.as_ptr(), sizes.as_ptr(), inputs.len(),
                    self.scratch_base.add(scratch_bytes * i as usize) as *mut c_char, scratch_bytes);
            }
        });
    }
}
