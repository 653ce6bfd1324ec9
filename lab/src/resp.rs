//! A minimal Redis client: RESP2 arrays of bulk strings out, one reply in. The lab needs only
//! a handful of commands, so speaking the protocol directly keeps it free of dependencies and
//! shows exactly what goes over the wire.

use fencing_playground::sim::commands::RedisReply;
use std::io::{self, BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

pub struct Redis {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Redis {
    pub fn connect(port: u16) -> io::Result<Redis> {
        let s = TcpStream::connect(("127.0.0.1", port))?;
        s.set_nodelay(true)?;
        s.set_read_timeout(Some(Duration::from_secs(5)))?;
        Ok(Redis {
            reader: BufReader::new(s.try_clone()?),
            writer: s,
        })
    }

    /// Sends one command and reads its reply; an I/O error means the server is gone.
    pub fn call(&mut self, args: &[String]) -> io::Result<RedisReply> {
        self.writer.write_all(&encode(args))?;
        read_reply(&mut self.reader)
    }
}

pub fn encode(args: &[String]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", args.len()).into_bytes();
    for a in args {
        out.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
        out.extend_from_slice(a.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out
}

fn line(r: &mut impl BufRead) -> io::Result<String> {
    let mut s = String::new();
    if r.read_line(&mut s)? == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "connection closed",
        ));
    }
    Ok(s.trim_end_matches(['\r', '\n']).to_string())
}

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

/// Reads one reply. Arrays (which these commands never get) are read and summarised.
pub fn read_reply(r: &mut impl BufRead) -> io::Result<RedisReply> {
    let l = line(r)?;
    let (kind, rest) = l.split_at(l.len().min(1));
    match kind {
        "+" if rest == "OK" => Ok(RedisReply::Ok),
        "+" => Ok(RedisReply::Bulk(rest.to_string())),
        "-" => Ok(RedisReply::Error(rest.to_string())),
        ":" => rest
            .parse()
            .map(RedisReply::Int)
            .map_err(|_| bad("bad integer")),
        "$" => {
            let n: i64 = rest.parse().map_err(|_| bad("bad length"))?;
            if n < 0 {
                return Ok(RedisReply::Nil);
            }
            let mut buf = vec![0u8; n as usize + 2];
            io::Read::read_exact(r, &mut buf)?;
            buf.truncate(n as usize);
            Ok(RedisReply::Bulk(String::from_utf8_lossy(&buf).into_owned()))
        }
        "*" => {
            let n: i64 = rest.parse().map_err(|_| bad("bad length"))?;
            for _ in 0..n.max(0) {
                read_reply(r)?;
            }
            Ok(RedisReply::Error(format!("unexpected array of {n}")))
        }
        _ => Err(bad("unknown reply type")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_bulk_arrays_and_reads_each_reply_kind() {
        let args = vec!["GET".to_string(), "acct:1".to_string()];
        assert_eq!(encode(&args), b"*2\r\n$3\r\nGET\r\n$6\r\nacct:1\r\n");
        let wire = b"+OK\r\n$-1\r\n:33\r\n$6\r\nA:beef\r\n-ERR no\r\n";
        let mut r = BufReader::new(&wire[..]);
        let got: Vec<RedisReply> = (0..5).map(|_| read_reply(&mut r).unwrap()).collect();
        assert_eq!(
            got,
            vec![
                RedisReply::Ok,
                RedisReply::Nil,
                RedisReply::Int(33),
                RedisReply::Bulk("A:beef".into()),
                RedisReply::Error("ERR no".into()),
            ]
        );
        assert!(read_reply(&mut r).is_err());
    }
}
