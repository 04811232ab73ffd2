//! A helper thread that runs one job at a time beside the caller, for the independent
//! halves of an update (DQN: the targets' forward pass beside the tracked one). Both
//! sides spin for a moment before they block: waking a parked thread takes about as
//! long as the job itself (tens of microseconds), which made a thread pool's `join`
//! slower than no helper at all.

use std::cell::Cell;
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A job: some host values computed from what it owns.
type Job = Box<dyn FnOnce() -> Vec<f32> + Send>;

/// How long a waiting side spins before it blocks.
const SPIN: Duration = Duration::from_micros(200);

/// The helper thread and its two channels.
pub struct Beside {
    jobs: Option<Sender<Job>>,
    results: Receiver<Vec<f32>>,
    thread: Option<JoinHandle<()>>,
    /// Jobs finished, and how many of them the caller had to block for.
    finished: Cell<u32>,
    late: Cell<u32>,
}

/// Jobs before [`Beside::starved`] judges.
const JUDGE_AFTER: u32 = 200;

impl Beside {
    /// A helper on a spare core, or `None` where it would not help: a single core, or
    /// a caller already inside a parallel pool (a grid's `--jobs` keeps every core busy).
    pub fn on_spare_core() -> Option<Beside> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        if cores < 2 || rayon::current_thread_index().is_some() {
            return None;
        }
        let (jobs, inbox) = channel::<Job>();
        let (outbox, results) = channel();
        let thread = std::thread::Builder::new()
            .name("burnmate-beside".into())
            .spawn(move || {
                while let (Some(job), _) = receive(&inbox) {
                    if outbox.send(job()).is_err() {
                        return;
                    }
                }
            })
            .ok()?;
        Some(Beside {
            jobs: Some(jobs),
            results,
            thread: Some(thread),
            finished: Cell::new(0),
            late: Cell::new(0),
        })
    }

    /// Starts `job` on the helper thread; [`Beside::finish`] returns its values.
    pub fn start(&self, job: impl FnOnce() -> Vec<f32> + Send + 'static) {
        let jobs = self.jobs.as_ref().expect("the channel closes only on drop");
        jobs.send(Box::new(job))
            .expect("the helper thread panicked");
    }

    /// The values of the job started last (waits for them).
    pub fn finish(&self) -> Vec<f32> {
        let (values, late) = receive(&self.results);
        self.finished.set(self.finished.get() + 1);
        self.late.set(self.late.get() + u32::from(late));
        values.expect("the helper thread panicked")
    }

    /// Whether the helper rarely gets a core (other processes keep both busy): more than
    /// one in ten jobs made the caller block. Then a caller does better without it.
    pub fn starved(&self) -> bool {
        starved(self.finished.get(), self.late.get())
    }
}

/// The rule of [`Beside::starved`]: after `finished` jobs, `late` of them late.
fn starved(finished: u32, late: u32) -> bool {
    finished >= JUDGE_AFTER && late * 10 > finished
}

/// The next message (`None` once the sender is gone): spins for [`SPIN`], then
/// blocks; `true` when it had to block.
fn receive<T>(channel: &Receiver<T>) -> (Option<T>, bool) {
    let start = Instant::now();
    loop {
        match channel.try_recv() {
            Ok(value) => return (Some(value), false),
            Err(TryRecvError::Disconnected) => return (None, false),
            Err(TryRecvError::Empty) if start.elapsed() < SPIN => std::hint::spin_loop(),
            Err(TryRecvError::Empty) => return (channel.recv().ok(), true),
        }
    }
}

impl Drop for Beside {
    fn drop(&mut self) {
        self.jobs.take();
        if let Some(thread) = self.thread.take() {
            // A panicked job already panicked the caller in `finish`.
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_run_in_order_and_return_their_values() {
        let Some(beside) = Beside::on_spare_core() else {
            return; // a single-core machine runs updates without a helper
        };
        for i in 0..100 {
            let owned = [i as f32; 3];
            beside.start(move || owned.iter().map(|v| v * 2.0).collect());
            assert_eq!(beside.finish(), vec![2.0 * i as f32; 3]);
        }
    }

    #[test]
    fn a_helper_is_starved_when_over_one_job_in_ten_kept_its_caller_waiting() {
        assert!(
            !starved(JUDGE_AFTER - 1, JUDGE_AFTER - 1),
            "too few jobs to judge"
        );
        assert!(!starved(JUDGE_AFTER, JUDGE_AFTER / 10));
        assert!(starved(JUDGE_AFTER, JUDGE_AFTER / 10 + 1));
        assert!(starved(1000, 101) && !starved(1000, 100));
    }

    #[test]
    fn a_message_already_sent_is_not_late_and_a_closed_channel_ends() {
        let (sender, channel) = channel();
        sender.send(7).unwrap();
        assert_eq!(receive(&channel), (Some(7), false));
        drop(sender);
        assert_eq!(receive(&channel), (None, false));
    }

    #[test]
    fn no_helper_inside_a_parallel_pool() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        assert!(pool.install(Beside::on_spare_core).is_none());
    }
}
