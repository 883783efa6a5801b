//! A `Read + Seek` that reports how far into the file reading has got, so loading a model
//! (seconds for hundreds of megabytes, during which the worker cannot answer messages) shows
//! a progress bar instead of nothing.

use std::io::{self, Read, Seek, SeekFrom};

pub struct ProgressReader<R, F: FnMut(u64)> {
    inner: R,
    pos: u64,
    /// The furthest position reached: the header is re-read from the start, and that is not
    /// progress going backwards.
    furthest: u64,
    report: F,
}

impl<R, F: FnMut(u64)> ProgressReader<R, F> {
    pub fn new(inner: R, report: F) -> Self {
        Self {
            inner,
            pos: 0,
            furthest: 0,
            report,
        }
    }
}

impl<R: Read, F: FnMut(u64)> Read for ProgressReader<R, F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.pos += n as u64;
        if self.pos > self.furthest {
            self.furthest = self.pos;
            (self.report)(self.furthest);
        }
        Ok(n)
    }
}

impl<R: Seek, F: FnMut(u64)> Seek for ProgressReader<R, F> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.pos = self.inner.seek(to)?;
        Ok(self.pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn reports_the_furthest_position_and_never_goes_back() {
        let mut seen = Vec::new();
        let mut r = ProgressReader::new(Cursor::new(vec![0u8; 100]), |p| seen.push(p));
        let mut buf = [0u8; 30];
        r.read_exact(&mut buf).unwrap();
        r.seek(SeekFrom::Start(0)).unwrap();
        r.read_exact(&mut buf[..10]).unwrap();
        r.seek(SeekFrom::Start(80)).unwrap();
        r.read_exact(&mut buf[..20]).unwrap();
        assert_eq!(r.read(&mut buf).unwrap(), 0);
        drop(r);
        assert_eq!(seen, vec![30, 100]);
    }
}
