//! Writes the split benchmark's synthetic rig (benches/README.md, "split"): an indexed
//! grid of `SIDE × SIDE` quads (two triangles each; 708 gives 1,002,528 triangles over
//! 502,681 vertices) with POSITION and one influence set, bound to `JOINTS` joints laid
//! out as a 20-column grid of regions over it (200 by default): each vertex blends the
//! joints of the four region centres around it (bilinearly), as a skin over a body would,
//! so neighbouring triangles share joints and a region boundary mixes four of them. The
//! weights sum to 1 within the glTF tolerance; the skin is a chain with identity inverse
//! bind matrices. Deterministic.
//!
//! Usage: `make_split_rig OUT.glb [SIDE] [JOINTS]`

use std::io::Write;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let Some(out) = args.get(1) else {
        eprintln!("usage: make_split_rig OUT.glb [SIDE] [JOINTS]");
        std::process::exit(2);
    };
    let side: usize = args
        .get(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(708)
        .max(1);
    let joints: usize = args
        .get(3)
        .and_then(|s| s.parse().ok())
        .unwrap_or(200)
        .clamp(4, 65_535);
    let cols = 20usize.min(joints);
    let rows = joints.div_ceil(cols);
    let n = (side + 1) * (side + 1);
    let mut pos = Vec::with_capacity(n * 12);
    let mut jnt = Vec::with_capacity(n * 8);
    let mut wgt = Vec::with_capacity(n * 16);
    for y in 0..=side {
        for x in 0..=side {
            let (u, v) = (x as f32 / side as f32, y as f32 / side as f32);
            for c in [u, v, 0.0] {
                pos.extend_from_slice(&c.to_le_bytes());
            }
            // Region coordinates, centres at half-integers.
            let (gx, gy) = (u * cols as f32 - 0.5, v * rows as f32 - 0.5);
            let (x0, y0) = (gx.floor().max(0.0), gy.floor().max(0.0));
            let (fx, fy) = ((gx - x0).clamp(0.0, 1.0), (gy - y0).clamp(0.0, 1.0));
            let (x0, y0) = (x0 as usize, y0 as usize);
            let (x1, y1) = ((x0 + 1).min(cols - 1), (y0 + 1).min(rows - 1));
            let joint = |cx: usize, cy: usize| (cy * cols + cx).min(joints - 1) as u16;
            let mut pairs: Vec<(u16, f32)> = Vec::with_capacity(4);
            for (j, w) in [
                (joint(x0, y0), (1.0 - fx) * (1.0 - fy)),
                (joint(x1, y0), fx * (1.0 - fy)),
                (joint(x0, y1), (1.0 - fx) * fy),
                (joint(x1, y1), fx * fy),
            ] {
                match pairs.iter_mut().find(|p| p.0 == j) {
                    Some(p) => p.1 += w,
                    None => pairs.push((j, w)),
                }
            }
            pairs.retain(|p| p.1 > 0.0);
            pairs.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            let total: f32 = pairs.iter().map(|p| p.1).sum();
            let mut w: Vec<f32> = pairs.iter().map(|p| p.1 / total).collect();
            let rest: f32 = w.iter().skip(1).sum();
            if let Some(first) = w.first_mut() {
                *first = 1.0 - rest;
            }
            for k in 0..4 {
                let (j, x) = match (pairs.get(k), w.get(k)) {
                    (Some(p), Some(&x)) => (p.0, x),
                    _ => (0, 0.0),
                };
                jnt.extend_from_slice(&j.to_le_bytes());
                wgt.extend_from_slice(&x.to_le_bytes());
            }
        }
    }
    let mut idx = Vec::with_capacity(side * side * 24);
    for y in 0..side {
        for x in 0..side {
            let a = (y * (side + 1) + x) as u32;
            let (b, c, d) = (a + 1, a + (side + 1) as u32, a + (side + 1) as u32 + 1);
            for i in [a, b, c, b, d, c] {
                idx.extend_from_slice(&i.to_le_bytes());
            }
        }
    }
    let mut ibm = Vec::with_capacity(joints * 64);
    for _ in 0..joints {
        for x in [
            1.0f32, 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1.,
        ] {
            ibm.extend_from_slice(&x.to_le_bytes());
        }
    }
    let mut bin = Vec::new();
    let mut views = Vec::new();
    for (data, target) in [
        (&pos, Some(34962)),
        (&jnt, Some(34962)),
        (&wgt, Some(34962)),
        (&idx, Some(34963)),
        (&ibm, None),
    ] {
        let at = bin.len();
        bin.extend_from_slice(data);
        views.push(match target {
            Some(t) => format!(
                r#"{{"buffer":0,"byteOffset":{at},"byteLength":{},"target":{t}}}"#,
                data.len()
            ),
            None => format!(
                r#"{{"buffer":0,"byteOffset":{at},"byteLength":{}}}"#,
                data.len()
            ),
        });
    }
    let nodes: Vec<String> = std::iter::once(r#"{"name":"grid","mesh":0,"skin":0}"#.to_owned())
        .chain((0..joints).map(|i| {
            if i + 1 < joints {
                format!(r#"{{"name":"j{i}","children":[{}]}}"#, i + 2)
            } else {
                format!(r#"{{"name":"j{i}"}}"#)
            }
        }))
        .collect();
    let joint_list: Vec<String> = (1..=joints).map(|i| i.to_string()).collect();
    let json = format!(
        r#"{{"asset":{{"version":"2.0","generator":"benches/src/bin/make_split_rig.rs"}},"scene":0,"scenes":[{{"nodes":[0,1]}}],"nodes":[{}],"skins":[{{"joints":[{}],"inverseBindMatrices":4}}],"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"JOINTS_0":1,"WEIGHTS_0":2}},"indices":3}}]}}],"accessors":[{{"bufferView":0,"componentType":5126,"count":{n},"type":"VEC3","min":[0,0,0],"max":[1,1,0]}},{{"bufferView":1,"componentType":5123,"count":{n},"type":"VEC4"}},{{"bufferView":2,"componentType":5126,"count":{n},"type":"VEC4"}},{{"bufferView":3,"componentType":5125,"count":{},"type":"SCALAR"}},{{"bufferView":4,"componentType":5126,"count":{joints},"type":"MAT4"}}],"bufferViews":[{}],"buffers":[{{"byteLength":{}}}]}}"#,
        nodes.join(","),
        joint_list.join(","),
        side * side * 6,
        views.join(","),
        bin.len()
    );
    let glb = dashvertex_gltf::glb::build(json.as_bytes(), Some(&bin))
        .map_err(|_| std::io::Error::other("too large for a GLB"))?;
    std::fs::File::create(out)?.write_all(&glb)?;
    eprintln!(
        "{out}: {} triangles, {n} vertices, {joints} joints, {} bytes",
        side * side * 2,
        glb.len()
    );
    Ok(())
}
