//! A minimal PostgreSQL client: the startup message with trust authentication and the simple
//! query protocol (one statement per `Q` message). Enough to run the storage's transactions
//! exactly as the page prints them, without a dependency.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

pub struct Pg {
    s: TcpStream,
}

/// What one statement returned: its command tag (`UPDATE 1`), the rows as text, or an error.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Answer {
    pub tag: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Option<String>>>,
    pub error: Option<String>,
}

impl Answer {
    /// How the Commands view writes a reply: the first row as `name value` pairs when there
    /// are rows, the tag otherwise, or the error.
    pub fn text(&self) -> String {
        if let Some(e) = &self.error {
            return format!("ERROR: {e}");
        }
        match self.rows.first() {
            Some(row) if self.tag.starts_with("SELECT") => self
                .columns
                .iter()
                .zip(row)
                .map(|(c, v)| format!("{c} {}", v.as_deref().unwrap_or("NULL")))
                .collect::<Vec<_>>()
                .join(", "),
            _ => self.tag.clone(),
        }
    }

    /// The first column of the first row as a number (`RETURNING balance`).
    pub fn first_number(&self) -> Option<i64> {
        self.rows.first()?.first()?.as_deref()?.parse().ok()
    }
}

fn bad(what: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.into())
}

impl Pg {
    pub fn connect(port: u16, user: &str, database: &str) -> io::Result<Pg> {
        let s = TcpStream::connect(("127.0.0.1", port))?;
        s.set_nodelay(true)?;
        s.set_read_timeout(Some(Duration::from_secs(10)))?;
        let mut pg = Pg { s };
        let mut body = 196_608u32.to_be_bytes().to_vec(); // protocol 3.0
        for (k, v) in [("user", user), ("database", database)] {
            body.extend_from_slice(k.as_bytes());
            body.push(0);
            body.extend_from_slice(v.as_bytes());
            body.push(0);
        }
        body.push(0);
        let mut msg = ((body.len() + 4) as u32).to_be_bytes().to_vec();
        msg.extend_from_slice(&body);
        pg.s.write_all(&msg)?;
        loop {
            let (kind, data) = pg.message()?;
            match kind {
                b'R' if data.get(..4) == Some(&[0, 0, 0, 0]) => {}
                b'R' => return Err(bad("the server asks for a password; the lab uses trust")),
                b'E' => return Err(bad(error_text(&data))),
                b'Z' => return Ok(pg),
                _ => {}
            }
        }
    }

    fn message(&mut self) -> io::Result<(u8, Vec<u8>)> {
        let mut head = [0u8; 5];
        self.s.read_exact(&mut head)?;
        let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
        let mut data = vec![0u8; len.saturating_sub(4)];
        self.s.read_exact(&mut data)?;
        Ok((head[0], data))
    }

    /// Runs one statement with the simple query protocol.
    pub fn query(&mut self, sql: &str) -> io::Result<Answer> {
        let mut msg = vec![b'Q'];
        msg.extend_from_slice(&((sql.len() + 5) as u32).to_be_bytes());
        msg.extend_from_slice(sql.as_bytes());
        msg.push(0);
        self.s.write_all(&msg)?;
        let mut a = Answer::default();
        loop {
            let (kind, data) = self.message()?;
            match kind {
                b'T' => a.columns = row_description(&data)?,
                b'D' => a.rows.push(data_row(&data)?),
                b'C' => a.tag = cstr(&data),
                b'E' => a.error = Some(error_text(&data)),
                b'Z' => return Ok(a),
                _ => {}
            }
        }
    }
}

fn cstr(data: &[u8]) -> String {
    let end = data.iter().position(|b| *b == 0).unwrap_or(data.len());
    String::from_utf8_lossy(&data[..end]).into_owned()
}

fn error_text(data: &[u8]) -> String {
    // Fields: a type byte and a C string each; 'M' is the message.
    let mut i = 0;
    while i < data.len() && data[i] != 0 {
        let kind = data[i];
        let text = cstr(&data[i + 1..]);
        if kind == b'M' {
            return text;
        }
        i += 1 + text.len() + 1;
    }
    "unknown error".to_string()
}

fn u16_at(d: &[u8], i: usize) -> io::Result<usize> {
    d.get(i..i + 2)
        .map(|b| u16::from_be_bytes([b[0], b[1]]) as usize)
        .ok_or_else(|| bad("short message"))
}

fn row_description(d: &[u8]) -> io::Result<Vec<String>> {
    let n = u16_at(d, 0)?;
    let mut i = 2;
    let mut out = Vec::new();
    for _ in 0..n {
        let name = cstr(d.get(i..).ok_or_else(|| bad("short row description"))?);
        i += name.len() + 1 + 18;
        out.push(name);
    }
    Ok(out)
}

fn data_row(d: &[u8]) -> io::Result<Vec<Option<String>>> {
    let n = u16_at(d, 0)?;
    let mut i = 2;
    let mut out = Vec::new();
    for _ in 0..n {
        let len = d
            .get(i..i + 4)
            .map(|b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(|| bad("short data row"))?;
        i += 4;
        if len < 0 {
            out.push(None);
        } else {
            let v = d
                .get(i..i + len as usize)
                .ok_or_else(|| bad("short value"))?;
            out.push(Some(String::from_utf8_lossy(v).into_owned()));
            i += len as usize;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_rows_and_errors() {
        let mut desc = 2u16.to_be_bytes().to_vec();
        for name in ["balance", "last_fence"] {
            desc.extend_from_slice(name.as_bytes());
            desc.push(0);
            desc.extend_from_slice(&[0; 18]);
        }
        assert_eq!(
            row_description(&desc).unwrap(),
            vec!["balance", "last_fence"]
        );
        let mut row = 2u16.to_be_bytes().to_vec();
        row.extend_from_slice(&2i32.to_be_bytes());
        row.extend_from_slice(b"90");
        row.extend_from_slice(&(-1i32).to_be_bytes());
        assert_eq!(data_row(&row).unwrap(), vec![Some("90".into()), None]);
        assert!(data_row(&row[..5]).is_err());
        let err = b"SERROR\0MDuplicate key\0\0";
        assert_eq!(error_text(err), "Duplicate key");
        let a = Answer {
            tag: "SELECT 1".into(),
            columns: vec!["balance".into(), "last_fence".into()],
            rows: vec![vec![Some("90".into()), Some("34".into())]],
            error: None,
        };
        assert_eq!(a.text(), "balance 90, last_fence 34");
    }
}
