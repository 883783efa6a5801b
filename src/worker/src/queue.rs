//! One generation at a time: requests wait in arrival order, and an abort either stops the
//! running one or removes a waiting one. Plain data; the browser loop performs the work.

use std::collections::VecDeque;

#[derive(Debug)]
pub struct Queue<T> {
    waiting: VecDeque<(u64, T)>,
    running: Option<u64>,
}

/// What an abort found.
#[derive(Debug, PartialEq)]
pub enum Aborted<T> {
    /// The running request: the loop stops it before its next token.
    Running,
    /// A waiting request, removed; it never started.
    Waiting(T),
    /// No such request (finished already, or never sent).
    Unknown,
}

impl<T> Default for Queue<T> {
    fn default() -> Self {
        Self {
            waiting: VecDeque::new(),
            running: None,
        }
    }
}

impl<T> Queue<T> {
    pub fn submit(&mut self, id: u64, item: T) {
        self.waiting.push_back((id, item));
    }

    /// The next request to run, if none is running; it becomes the running one.
    pub fn start_next(&mut self) -> Option<(u64, T)> {
        if self.running.is_some() {
            return None;
        }
        let next = self.waiting.pop_front()?;
        self.running = Some(next.0);
        Some(next)
    }

    pub fn running(&self) -> Option<u64> {
        self.running
    }

    /// The running request ended (finished, failed or aborted).
    pub fn finish(&mut self, id: u64) {
        if self.running == Some(id) {
            self.running = None;
        }
    }

    pub fn abort(&mut self, id: u64) -> Aborted<T> {
        if self.running == Some(id) {
            return Aborted::Running;
        }
        match self.waiting.iter().position(|(i, _)| *i == id) {
            Some(at) => match self.waiting.remove(at) {
                Some((_, item)) => Aborted::Waiting(item),
                None => Aborted::Unknown,
            },
            None => Aborted::Unknown,
        }
    }

    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }
}
