//! The lab's clock shim on a real `redis-server` 7: what the Redlock clock presets rest on.
//! One server's wall clock moves by the offset the lab writes, its expiries follow that wall
//! clock both ways (so Redis has no monotonic expiry), and a server beside it keeps the
//! machine's time. Needs `redis-server` (`scripts/setup.sh`) and the shim built
//! (`cargo build -p fencing-lab-clockshim`).

use fencing_lab::resp::Redis;
use fencing_lab::servers::{RedisServer, TempDir};
use fencing_lab::shim::ClockFile;
use fencing_playground::sim::commands::RedisReply;
use std::sync::Arc;

fn call(r: &mut Redis, args: &[&str]) -> RedisReply {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    r.call(&args).expect("a reply")
}

fn pttl(r: &mut Redis, key: &str) -> i64 {
    match call(r, &["PTTL", key]) {
        RedisReply::Int(n) => n,
        other => panic!("PTTL answered {other:?}"),
    }
}

#[test]
fn shim_moves_the_expiry_of_one_server() {
    let dir = TempDir::in_memory().expect("a directory");
    let clock = Arc::new(ClockFile::create(&dir.0, "moved").expect("a clock file"));
    let moved = RedisServer::start_clocked(&dir.0.join("moved"), false, Some(clock.clone()))
        .expect("redis-server with the shim");
    let plain = RedisServer::start(&dir.0.join("plain"), false).expect("redis-server");
    let mut m = Redis::connect(moved.port).expect("connect");
    let mut p = Redis::connect(plain.port).expect("connect");
    let ok = RedisReply::Ok;
    for r in [&mut m, &mut p] {
        assert_eq!(call(r, &["SET", "long", "v", "PX", "60000"]), ok);
        assert_eq!(call(r, &["SET", "k", "v", "PX", "5000"]), ok);
    }
    assert!(
        pttl(&mut m, "long") > 55_000,
        "offset 0 is the machine's time"
    );

    clock.set_ns(10_000_000_000);
    let left = pttl(&mut m, "long");
    assert!(
        (45_000..=50_000).contains(&left),
        "stepped 10 s forward: {left} ms left of 60 s"
    );
    assert!(
        pttl(&mut p, "long") > 55_000,
        "the other server keeps the machine's time"
    );
    assert_eq!(
        call(&mut m, &["GET", "k"]),
        RedisReply::Nil,
        "expired by the stepped clock"
    );
    assert_eq!(
        call(&mut p, &["GET", "k"]),
        RedisReply::Bulk("v".into()),
        "alive beside it"
    );

    // A key set on the stepped clock, then the clock stepped back: its expiry stays on the
    // wall clock, 10 s further away, as no monotonic expiry would have it.
    assert_eq!(call(&mut m, &["SET", "k2", "v", "PX", "5000"]), ok);
    clock.set_ns(0);
    let left = pttl(&mut m, "k2");
    assert!(
        left > 10_000,
        "stepped back 10 s, the key has {left} ms left of 5 s"
    );
}
