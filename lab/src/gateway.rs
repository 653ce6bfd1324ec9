//! etcd's JSON gateway, as its documentation describes it: every call is a `POST` of a JSON
//! object to `/v3/…` on a member's client port; keys and values travel in standard base64, and
//! 64-bit integers come back as strings (and are left out when zero). The lab's conductor, its
//! cluster manager and its etcd clients all speak it through `ureq`.

use serde_json::Value;
use std::time::Duration;

/// Standard base64 with padding, as the gateway carries keys and values.
pub fn b64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let mut n = 0u32;
        for (k, b) in chunk.iter().enumerate() {
            n |= u32::from(*b) << (16 - 8 * k);
        }
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(char::from(ABC[((n >> (18 - 6 * k)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The bytes of a standard base64 text; `None` when it is not one.
pub fn unb64(text: &str) -> Option<Vec<u8>> {
    let digit = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let body = text.trim_end_matches('=');
    if text.len() % 4 != 0 || text.len() - body.len() > 2 {
        return None;
    }
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in body.bytes() {
        acc = (acc << 6) | digit(c)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// An int64 field of a reply: a string of digits, a number, or absent (zero).
pub fn int(v: &Value, field: &str) -> Result<i64, String> {
    match v.get(field) {
        None | Some(Value::Null) => Ok(0),
        Some(Value::String(s)) => s
            .parse()
            .map_err(|_| format!("`{field}` is not an integer: {s:?}")),
        Some(Value::Number(n)) => n
            .as_i64()
            .ok_or_else(|| format!("`{field}` is not an int64: {n}")),
        Some(other) => Err(format!("`{field}` is not an integer: {other}")),
    }
}

/// A uint64 id field (a member's): member ids use all 64 bits, past an int64.
pub fn id(v: &Value, field: &str) -> Option<u64> {
    match v.get(field)? {
        Value::String(s) => s.parse().ok(),
        Value::Number(n) => n.as_u64(),
        _ => None,
    }
}

/// The `header.revision` of a reply: the cluster's revision when it answered.
pub fn header_revision(v: &Value) -> Result<i64, String> {
    let h = v.get("header").ok_or_else(|| format!("no header in {v}"))?;
    int(h, "revision")
}

/// The error a reply carries instead of a result (`{"error":…,"code":…}`), if it does.
pub fn error_of(v: &Value) -> Option<String> {
    v.get("error")
        .or_else(|| v.get("message"))
        .map(|e| e.as_str().map_or_else(|| e.to_string(), str::to_string))
}

/// The first key-value of a range reply: its create revision and value, or `None` when the
/// key does not exist.
pub fn first_kv(v: &Value) -> Result<Option<(i64, Vec<u8>)>, String> {
    let Some(kv) = v
        .get("kvs")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
    else {
        return Ok(None);
    };
    let rev = match kv.get("create_revision") {
        Some(_) => int(kv, "create_revision")?,
        None => int(kv, "createRevision")?,
    };
    let value = match kv.get("value").and_then(Value::as_str) {
        None => Vec::new(),
        Some(t) => unb64(t).ok_or_else(|| format!("a value that is not base64: {t}"))?,
    };
    Ok(Some((rev, value)))
}

/// A gateway client for a list of members: a call goes to the first that answers at all.
pub struct Gateway {
    agent: ureq::Agent,
    pub ports: Vec<u16>,
}

impl Gateway {
    /// Calls that wait (a lock call in the queue) are given `timeout`.
    pub fn new(ports: Vec<u16>, timeout: Duration) -> Gateway {
        let agent = ureq::AgentBuilder::new()
            .timeout_connect(Duration::from_millis(500))
            .timeout(timeout)
            .build();
        Gateway { agent, ports }
    }

    /// `POST /v3/{path}` with `body` to member port `port`; the reply's JSON, an error reply
    /// included (the gateway answers an etcd error with a non-200 status and a JSON body).
    pub fn call_on(&self, port: u16, path: &str, body: &Value) -> Result<Value, String> {
        let url = format!("http://127.0.0.1:{port}/v3/{path}");
        let text = match self
            .agent
            .post(&url)
            .set("Content-Type", "application/json")
            .send_string(&body.to_string())
        {
            Ok(r) => r.into_string().map_err(|e| format!("{path}: {e}"))?,
            Err(ureq::Error::Status(_, r)) => {
                r.into_string().map_err(|e| format!("{path}: {e}"))?
            }
            Err(e) => return Err(format!("{path} on port {port}: {e}")),
        };
        parse_reply(&text).map_err(|e| format!("{path}: {e}"))
    }

    /// The call on the first member that answers: a member that refuses the connection (it
    /// was killed) is skipped, as a client library with several endpoints does.
    pub fn call(&self, path: &str, body: &Value) -> Result<Value, String> {
        let mut last = "no member to ask".to_string();
        for &port in &self.ports {
            match self.call_on(port, path, body) {
                Ok(v) => return Ok(v),
                Err(e) => last = e,
            }
        }
        Err(last)
    }
}

/// A reply's text as JSON. A streaming call (`lease/keepalive`) answers with one object per
/// message, each wrapped in `{"result": …}`: the first one is the reply.
pub fn parse_reply(text: &str) -> Result<Value, String> {
    let first = serde_json::Deserializer::from_str(text)
        .into_iter::<Value>()
        .next()
        .ok_or_else(|| "an empty reply".to_string())?
        .map_err(|e| format!("not JSON ({e}): {text}"))?;
    Ok(match first.get("result") {
        Some(r) if first.as_object().is_some_and(|o| o.len() == 1) => r.clone(),
        _ => first,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_both_ways() {
        for (plain, coded) in [
            ("", ""),
            ("a", "YQ=="),
            ("ab", "YWI="),
            ("acct:1", "YWNjdDox"),
        ] {
            assert_eq!(b64(plain.as_bytes()), coded);
            assert_eq!(unb64(coded).as_deref(), Some(plain.as_bytes()));
        }
        assert_eq!(unb64("YQ="), None);
        assert_eq!(unb64("Y!=="), None);
    }

    #[test]
    fn int64s_come_as_strings_and_zero_is_left_out() {
        let v: Value = serde_json::from_str(r#"{"ID":"7587869","TTL":3,"x":"no"}"#).expect("json");
        assert_eq!(int(&v, "ID"), Ok(7_587_869));
        assert_eq!(int(&v, "TTL"), Ok(3));
        assert_eq!(int(&v, "grantedTTL"), Ok(0));
        assert!(int(&v, "x").is_err());
        let status: Value = serde_json::from_str(
            r#"{"header":{"member_id":"11539305337000706507"},"leader":"3542974012341521924"}"#,
        )
        .expect("json");
        assert_eq!(
            status.get("header").and_then(|h| id(h, "member_id")),
            Some(11_539_305_337_000_706_507)
        );
        assert_eq!(id(&status, "leader"), Some(3_542_974_012_341_521_924));
    }

    #[test]
    fn a_keepalive_reply_is_unwrapped_and_a_range_read() {
        let ka = parse_reply(
            "{\"result\":{\"header\":{\"revision\":\"41\"},\"ID\":\"12\",\"TTL\":\"3\"}}\n",
        )
        .expect("reply");
        assert_eq!(int(&ka, "TTL"), Ok(3));
        assert_eq!(header_revision(&ka), Ok(41));
        let gone = parse_reply("{\"result\":{\"header\":{\"revision\":\"41\"},\"ID\":\"12\"}}")
            .expect("reply");
        assert_eq!(int(&gone, "TTL"), Ok(0));
        let range = parse_reply(
            r#"{"header":{"revision":"9"},"kvs":[{"key":"YQ==","create_revision":"7","mod_revision":"8","value":"OTA="}],"count":"1"}"#,
        )
        .expect("reply");
        assert_eq!(first_kv(&range), Ok(Some((7, b"90".to_vec()))));
        let empty = parse_reply(r#"{"header":{"revision":"9"}}"#).expect("reply");
        assert_eq!(first_kv(&empty), Ok(None));
        let err = parse_reply(r#"{"error":"etcdserver: requested lease not found","code":5}"#)
            .expect("reply");
        assert_eq!(
            error_of(&err).as_deref(),
            Some("etcdserver: requested lease not found")
        );
    }
}
