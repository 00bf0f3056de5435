//! Work on all threads with results in input order, whatever the thread count.

use std::sync::atomic::{AtomicUsize, Ordering};

/// `f` applied to every item on up to `threads` workers, each taking the next item
/// when it is free; results come back in the order of `items`. Each worker asks for
/// `stack` bytes of stack (a worker that cannot get them runs with the default
/// stack) and starts by calling `state(got_stack)` once for the state it threads
/// through its items.
pub fn map_ordered<T, R, S>(
    items: &[T],
    threads: usize,
    stack: usize,
    state: impl Fn(bool) -> S + Sync,
    f: impl Fn(&mut S, &T) -> R + Sync,
) -> Vec<R>
where
    T: Sync,
    R: Send,
{
    let next = AtomicUsize::new(0);
    let threads = threads.clamp(1, items.len().max(1));
    let mut results: Vec<(usize, R)> = std::thread::scope(|s| {
        let (next, state, f) = (&next, &state, &f);
        // Captures only references: a copy goes to each worker.
        let work = move |got_stack: bool| {
            let mut st = state(got_stack);
            let mut out = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                out.push((i, f(&mut st, item)));
            }
            out
        };
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                std::thread::Builder::new()
                    .name("keylint-worker".into())
                    .stack_size(stack)
                    .spawn_scoped(s, move || work(true))
                    .unwrap_or_else(|_| s.spawn(move || work(false)))
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a worker panicked"))
            .collect()
    });
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::map_ordered;

    #[test]
    fn results_keep_the_input_order() {
        let items: Vec<u32> = (0..1000).collect();
        for threads in [0, 1, 2, 7, 5000] {
            let out = map_ordered(
                &items,
                threads,
                1 << 20,
                |_| 0u32,
                |seen, x| {
                    *seen += 1;
                    x * 2
                },
            );
            assert_eq!(out, items.iter().map(|x| x * 2).collect::<Vec<_>>());
        }
        let none: Vec<u32> = map_ordered(&[] as &[u32], 2, 1 << 20, |_| (), |(), x| *x);
        assert!(none.is_empty());
    }
}
