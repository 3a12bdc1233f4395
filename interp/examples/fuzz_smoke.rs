use spy_interp::fuzz::{gen, oracle};
use std::collections::BTreeMap;
fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let show: Option<String> = std::env::args().nth(2);
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    let mut examples: BTreeMap<String, String> = BTreeMap::new();
    let mut cfg = oracle::OracleConfig::default();
    if let Ok(m) = std::env::var("MUT") {
        cfg.mutations = spy_interp::frames::Mutation::from_name(&m).unwrap().into();
    }
    let t0 = std::time::Instant::now();
    for i in 0..n {
        let mut x = i.wrapping_mul(0x9E3779B97F4A7C15) ^ 0x1234;
        let data: Vec<u8> = (0..2048)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect();
        let p = gen::generate(&data);
        let c = oracle::check(&p.source, &cfg);
        let k = match &c.verdict {
            oracle::Verdict::Finding(f) => format!("FINDING {}", f.signature),
            oracle::Verdict::Timeout => "timeout".into(),
            oracle::Verdict::Agree => c
                .reference
                .error
                .clone()
                .map(|e| e.chars().take(90).collect())
                .unwrap_or("ok".into()),
        };
        *kinds.entry(k.clone()).or_default() += 1;
        examples.entry(k).or_insert(format!("#{i}\n{}", p.source));
    }
    eprintln!("{:?} for {n}", t0.elapsed());
    for (k, v) in &kinds {
        println!("{v:5} {k}");
    }
    if let Some(s) = show {
        for (k, e) in &examples {
            if k.contains(&s) {
                println!("==== {k}\n{e}");
            }
        }
    }
}
