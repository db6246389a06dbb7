//! [`Follow`]: reading a file that another program is still writing, as
//! `tail -f` does, so that a stream's batches are read as they arrive.

use std::io::{self, Read};
use std::thread;
use std::time::{Duration, Instant};

/// A [`Read`] over a source that may grow (a file being written): where the
/// source reports its end, `Follow` waits `poll` and reads again, until new
/// bytes come or, when an idle limit is set, none came for that long (then it
/// reports the end, and a stream reader a truncated stream).
///
/// An IPC stream ends with its end-of-stream marker, after which the stream
/// readers read no more, so following a finished stream returns; following
/// a stream whose writer died before that waits for the idle limit (or
/// forever without one, as `tail -f`).
///
/// ```
/// use std::io::Read;
/// use std::time::Duration;
/// use alkaid_std::Follow;
///
/// // A source that has ended stays ended after the idle limit.
/// let mut f = Follow::new(&b"abc"[..]).idle_limit(Some(Duration::from_millis(20)));
/// let mut all = Vec::new();
/// f.read_to_end(&mut all)?;
/// assert_eq!(all, b"abc");
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct Follow<R> {
    inner: R,
    poll: Duration,
    idle: Option<Duration>,
}

impl<R: Read> Follow<R> {
    /// Follows `inner`, polling every 50 ms, without an idle limit.
    pub fn new(inner: R) -> Self {
        Follow {
            inner,
            poll: Duration::from_millis(50),
            idle: None,
        }
    }

    /// Polls every `poll` (at least 1 ms) at the source's end.
    pub fn poll_interval(mut self, poll: Duration) -> Self {
        self.poll = poll.max(Duration::from_millis(1));
        self
    }

    /// Reports the end after `idle` without new bytes (`None`: never).
    pub fn idle_limit(mut self, idle: Option<Duration>) -> Self {
        self.idle = idle;
        self
    }

    /// The followed source.
    pub fn into_inner(self) -> R {
        self.inner
    }
}

impl<R: Read> Read for Follow<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let since = Instant::now();
        loop {
            match self.inner.read(buf) {
                Ok(0) => {
                    if self.idle.is_some_and(|idle| since.elapsed() >= idle) {
                        return Ok(0);
                    }
                    thread::sleep(self.poll);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                other => return other,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Seek, SeekFrom, Write};
    use std::time::Duration;

    use super::Follow;

    #[test]
    fn reads_bytes_appended_after_the_end() {
        let path = std::env::temp_dir().join(format!("alkaid-follow-{}", std::process::id()));
        let mut w = std::fs::File::create(&path).unwrap();
        w.write_all(b"ab").unwrap();
        let r = std::fs::File::open(&path).unwrap();
        let mut f = Follow::new(r).poll_interval(Duration::from_millis(1));
        let mut buf = [0u8; 4];
        assert_eq!(f.read(&mut buf).unwrap(), 2);
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            w.seek(SeekFrom::End(0)).unwrap();
            w.write_all(b"cd").unwrap();
        });
        // Blocks until the writer appends.
        assert_eq!(f.read(&mut buf).unwrap(), 2);
        assert_eq!(&buf[..2], b"cd");
        writer.join().unwrap();
        let mut f = f.idle_limit(Some(Duration::from_millis(5)));
        assert_eq!(f.read(&mut buf).unwrap(), 0);
        let _ = std::fs::remove_file(path);
    }
}
