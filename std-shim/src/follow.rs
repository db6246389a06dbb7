//! [`Follow`]: reading a file that another program is still writing, as
//! `tail -f` does, so that a stream's batches are read as they arrive.

use std::io::{self, Read};
use std::thread;
use std::time::{Duration, Instant};

/// A [`Read`] over a source that may grow (a file being written): where the
/// source reports its end, `Follow` waits `poll` and reads again, until new
/// bytes come or, when an idle limit is set, none came for that long: then
/// the read fails with [`std::io::ErrorKind::TimedOut`] ("no new bytes for
/// …"), so that a stream reader reports a writer that stopped before its
/// stream's end instead of taking the bytes so far for a whole stream.
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
/// // A source that stops growing: its bytes, then the idle limit's error.
/// let mut f = Follow::new(&b"abc"[..]).idle_limit(Some(Duration::from_millis(20)));
/// let mut buf = [0u8; 8];
/// assert_eq!(f.read(&mut buf)?, 3);
/// assert_eq!(f.read(&mut buf).unwrap_err().kind(), std::io::ErrorKind::TimedOut);
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

    /// Fails a read with [`std::io::ErrorKind::TimedOut`] after `idle`
    /// without new bytes (`None`: waits forever).
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
                    if let Some(idle) = self.idle.filter(|idle| since.elapsed() >= *idle) {
                        return Err(io::Error::new(
                            io::ErrorKind::TimedOut,
                            format!(
                                "no new bytes for {:.1} s: the writer stopped before the end of the stream",
                                idle.as_secs_f64()
                            ),
                        ));
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
        let err = f.read(&mut buf).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::TimedOut);
        let _ = std::fs::remove_file(path);
    }
}
