//! Reduces per-vertex influence lists to 4 influences with unorm8 weights whose
//! integers sum to exactly 255: `cargo run -p dashvertex --example reduce_lists`

use dashvertex::reduce::{Config, InfluenceLists, Quantize, reduce_lists};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut lists = InfluenceLists::named(["hips", "spine", "chest", "neck", "head"]);
    lists.vertex([(0, 0.1), (1, 0.3), (2, 0.25), (3, 0.2), (4, 0.15)]);
    lists.vertex([(1, 1.0 / 3.0), (2, 1.0 / 3.0), (3, 1.0 / 3.0)]);
    // Four influences per vertex is the default; unorm8 weights need unit sums.
    let cfg = Config::default().with_quantize(Quantize::Unorm8);
    let out = reduce_lists(lists, &cfg)?;
    let integers = out.integers.unwrap_or_default();
    for (v, (set, q)) in out.influences.iter().zip(&integers).enumerate() {
        let (bones, sum) = (set.joints, q.iter().sum::<u32>());
        println!("vertex {v}: bones {bones:?} unorm8 {q:?} (sum {sum})");
    }
    Ok(())
}
