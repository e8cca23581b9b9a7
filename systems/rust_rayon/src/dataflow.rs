//! -dataflow: a dependency-counting scheduler on rayon's pool, with no barrier between rows.
//! Every task has an atomic count of the tasks it still waits for; a finished task decrements
//! its successors' counts, spawns (`Scope::spawn`) those that reach zero and runs one of them
//! itself (a continuation: one spawn fewer per row on a chain). One scope holds the whole run.
//! The counts and every task's successors are the graph's shape, listed before the timed
//! region, as a flow graph's edges are (listing them in the task cost 1000 more instructions
//! per task of calls into the core, measured with callgrind).
//!
//! A task waits for more than its inputs, since the buffers are reused (two output fields per
//! column, one scratch buffer per column; see buffers.rs): task (t, i) overwrites the field that
//! (t-2, i) wrote, so it also waits for that task's readers (its successors, in row t-1), and,
//! with scratch, for (t-1, i). Where (t-2, i)'s output has no reader (trivial; the edges of dom
//! and tree), nothing would order the two writes of that field: the column is then chained,
//! (t-2, i) -> (t-1, i) -> (t, i) (see `column_chained`), so the later write lands last. All of
//! these are in row t-1, and the columns of dom and tree keep their tasks in consecutive rows, so
//! "the task exists" is all the clipping needed.
//! The successor side lists exactly the same edges, seen from the other end.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::buffers::GraphBuffers;
use crate::core_api::{self, Interval, TaskGraph};

pub struct Dataflow<'a> {
    buffers: &'a [GraphBuffers],
    /// Per graph, row-major (t * max_width + i): the tasks (t, i) still waits for.
    waiting: Vec<Vec<AtomicU32>>,
    /// Per graph: the successors' columns (in row t+1) of task n = t * max_width + i are
    /// successors[first[n]..first[n + 1]].
    successors: Vec<(Vec<u32>, Vec<u32>)>,
    /// (graph, t, i) of the tasks that wait for nothing: listed before the run, since a count
    /// that reaches zero during it belongs to the task that made it so.
    ready: Vec<(usize, i64, i64)>,
}

thread_local! {
    // Per-thread space for listing a task's neighbours (no allocation per task).
    static SPACE: RefCell<(Vec<Interval>, Vec<i64>)> = RefCell::new((Vec::new(), Vec::new()));
}

fn contains(g: TaskGraph, t: i64, i: i64) -> bool {
    // SAFETY: a plain query on a graph the core made.
    unsafe { core_api::task_graph_contains_point(g, t as _, i as _) }
}

fn no_readers(g: TaskGraph, t: i64, i: i64, intervals: &mut [Interval]) -> bool {
    // SAFETY: intervals holds the core's bound for this graph.
    unsafe { core_api::task_graph_task_successors_into(g, t as _, i as _, intervals.as_mut_ptr()) == 0 }
}

/// Whether (t, i) waits for (t-1, i): for the scratch they share, or to order the writes of a
/// field whose output no task reads: (t-1, i)'s (so that (t+1, i) comes after it, through
/// (t, i)) or (t-2, i)'s (which (t, i) overwrites).
fn column_chained(g: TaskGraph, t: i64, i: i64, intervals: &mut [Interval]) -> bool {
    contains(g, t - 1, i)
        && (g.scratch_bytes_per_task > 0
            || no_readers(g, t - 1, i, intervals)
            || (contains(g, t - 2, i) && no_readers(g, t - 2, i, intervals)))
}

/// The distinct columns of row t-1 (before = true) or t+1 that task (t, i) has an edge with,
/// sorted, into `columns`.
fn neighbours(g: TaskGraph, t: i64, i: i64, before: bool, intervals: &mut Vec<Interval>, columns: &mut Vec<i64>) {
    // SAFETY: intervals holds the core's bound for this graph; plain queries otherwise.
    unsafe {
        intervals.resize((core_api::task_graph_max_intervals(g) as usize).max(1), Interval::default());
        columns.clear();
        fn add(n: i64, intervals: &[Interval], columns: &mut Vec<i64>, keep: &dyn Fn(i64) -> bool) {
            for d in &intervals[..n as usize] {
                columns.extend((d.start as i64..=d.end as i64).filter(|&j| keep(j)));
            }
        }
        if before {
            // inputs; readers of (t-2, i), whose field (t, i) overwrites; the column chain
            let n = core_api::task_graph_task_dependencies_into(g, t as _, i as _, intervals.as_mut_ptr());
            add(n as i64, intervals, columns, &|_| true);
            if contains(g, t - 2, i) {
                let n = core_api::task_graph_task_successors_into(g, (t - 2) as _, i as _, intervals.as_mut_ptr());
                add(n as i64, intervals, columns, &|_| true);
            }
            if column_chained(g, t, i, intervals) {
                columns.push(i);
            }
        } else {
            // consumers; the writers of row t+1 whose fields (t, i)'s inputs were; the column chain
            let n = core_api::task_graph_task_successors_into(g, t as _, i as _, intervals.as_mut_ptr());
            add(n as i64, intervals, columns, &|_| true);
            let n = core_api::task_graph_task_dependencies_into(g, t as _, i as _, intervals.as_mut_ptr());
            add(n as i64, intervals, columns, &|j| contains(g, t + 1, j));
            if contains(g, t + 1, i) && column_chained(g, t + 1, i, intervals) {
                columns.push(i);
            }
        }
    }
    columns.sort_unstable();
    columns.dedup();
}

impl<'a> Dataflow<'a> {
    /// Counts every task's predecessors (before the timed region: the graph's shape).
    pub fn new(buffers: &'a [GraphBuffers]) -> Self {
        let mut ready = Vec::new();
        let mut successors = Vec::new();
        let waiting = buffers.iter().enumerate().map(|(k, b)| {
            let g = b.graph;
            let width = g.max_width as usize;
            let tasks = b.timesteps() as usize * width;
            let counts: Vec<AtomicU32> = (0..tasks).map(|_| AtomicU32::new(0)).collect();
            let (mut first, mut after) = (vec![0u32; tasks + 1], Vec::new());
            SPACE.with(|cell| {
                let (intervals, columns) = &mut *cell.borrow_mut();
                for t in 0..b.timesteps() {
                    for i in b.row(t) {
                        let n = t as usize * width + i as usize;
                        neighbours(g, t, i, true, intervals, columns);
                        counts[n].store(columns.len() as u32, Ordering::Relaxed);
                        if columns.is_empty() {
                            ready.push((k, t, i));
                        }
                        neighbours(g, t, i, false, intervals, columns);
                        after.extend(columns.iter().map(|&j| j as u32));
                        first[n + 1] = after.len() as u32;
                    }
                    // columns outside a narrow row have no successors
                    for n in (t as usize * width)..((t as usize + 1) * width) {
                        first[n + 1] = first[n + 1].max(first[n]);
                    }
                }
            });
            successors.push((first, after));
            counts
        }).collect();
        Dataflow { buffers, waiting, successors, ready }
    }

    /// Runs every task: spawns those that wait for nothing, and returns once all ran.
    pub fn run(&self) {
        rayon::scope(|s| {
            for &(k, t, i) in &self.ready {
                s.spawn(move |s| self.task(s, k, t, i));
            }
        });
    }

    fn count(&self, k: usize, t: i64, i: i64) -> &AtomicU32 {
        &self.waiting[k][t as usize * self.buffers[k].graph.max_width as usize + i as usize]
    }

    /// Runs (t, i) of graph k, then the successors it made ready: one here, the others spawned.
    fn task<'s>(&'s self, s: &rayon::Scope<'s>, k: usize, mut t: i64, mut i: i64) {
        let b = &self.buffers[k];
        loop {
            b.run(t, i);
            let n = t as usize * b.graph.max_width as usize + i as usize;
            let (first, after) = &self.successors[k];
            let mut next = None;
            for &j in &after[first[n] as usize..first[n + 1] as usize] {
                let j = j as i64;
                // AcqRel: the last decrement sees every predecessor's writes and passes them on
                // to the successor it spawns or runs.
                if self.count(k, t + 1, j).fetch_sub(1, Ordering::AcqRel) == 1 {
                    if next.is_none() {
                        next = Some(j);
                    } else {
                        s.spawn(move |s| self.task(s, k, t + 1, j));
                    }
                }
            }
            match next {
                Some(j) => (t, i) = (t + 1, j),
                None => return,
            }
        }
    }
}
