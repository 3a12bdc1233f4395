use spy_interp::fuzz::{oracle, reduce};
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let src = std::fs::read_to_string(&path).unwrap();
    let mut cfg = oracle::OracleConfig::default();
    if let Ok(m) = std::env::var("MUT") {
        cfg.mutations = spy_interp::frames::Mutation::from_name(&m).unwrap().into();
    }
    let c = oracle::check(&src, &cfg);
    let oracle::Verdict::Finding(f) = c.verdict else {
        println!("no finding: {:?}", c.verdict);
        return;
    };
    println!("sig: {}", f.signature);
    let t = std::time::Instant::now();
    let r = reduce::reduce(&src, &f.signature, &cfg, reduce::ReduceBudget::default());
    println!(
        "{} tries {} accepted in {:?}\n{}",
        r.tries,
        r.accepted,
        t.elapsed(),
        r.source
    );
}
