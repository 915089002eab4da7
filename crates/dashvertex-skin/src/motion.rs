//! The range-of-motion poses (spec/reduction.md §4, **[LR1]**): what the loss is measured
//! over when no animation moves a joint. A model without animations sits at its rest
//! pose, where a reduction that keeps each vertex's weight sum moves nothing, so "max 0"
//! would say nothing about how the model deforms once posed. These poses turn each used
//! joint, one at a time, by ±[`MOTION_DEGREES`] about its local X, Y and Z axes. (Every
//! joint turned at once was tried and left out: the turns compound along each chain into
//! poses no model takes, a humanoid's arms twisted by hundreds of degrees, and their
//! figures said more about that than about the reduction.)

use crate::math::{decompose, normalize};
use crate::rig::Local;

/// The angle, in degrees, the range-of-motion poses turn a joint by (each way).
pub const MOTION_DEGREES: f64 = 45.0;

/// Poses per joint: + then − about X, Y and Z.
const PER_JOINT: usize = 6;

/// A joint's local axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// X.
    X,
    /// Y.
    Y,
    /// Z.
    Z,
}

impl Axis {
    /// "X", "Y" or "Z".
    pub fn name(self) -> &'static str {
        match self {
            Axis::X => "X",
            Axis::Y => "Y",
            Axis::Z => "Z",
        }
    }
}

/// One pose of a [`RangeOfMotion`].
#[derive(Clone, Debug, PartialEq)]
pub struct MotionPose {
    /// Its place in the set, from 0 (the rest pose is not one of them).
    pub index: usize,
    /// The joint turned (its node index).
    pub joint: usize,
    /// The joint node's name, if it has one.
    pub name: Option<String>,
    /// The local axis it turns about.
    pub axis: Axis,
    /// The angle, in degrees: +45 or −45.
    pub degrees: f64,
}

impl MotionPose {
    /// The pose in words: `joint 3 ("arm") turned +45° about its local X axis`.
    pub fn describe(&self) -> String {
        let who = match &self.name {
            Some(n) => format!("joint node {} ({n:?})", self.joint),
            None => format!("joint node {}", self.joint),
        };
        format!(
            "in range-of-motion pose {}: {who} turned {:+}\u{b0} about its local {} axis",
            self.index,
            self.degrees,
            self.axis.name()
        )
    }
}

/// The range-of-motion pose set over the used joints (node indices, each once,
/// ascending): for each joint in turn, 6 poses (+, − about X, then Y, then Z), the other
/// joints at rest. Poses are numbered in that order and made on demand, so the set costs
/// nothing until a pose is measured.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RangeOfMotion {
    joints: Vec<usize>,
}

impl RangeOfMotion {
    /// The set over `joints` (node indices; repeats are taken once, the order is
    /// ascending).
    pub fn new(joints: impl IntoIterator<Item = usize>) -> RangeOfMotion {
        let mut joints: Vec<usize> = joints.into_iter().collect();
        joints.sort_unstable();
        joints.dedup();
        RangeOfMotion { joints }
    }

    /// The joints turned, ascending.
    pub fn joints(&self) -> &[usize] {
        &self.joints
    }

    /// Poses in the set: 6 per joint.
    pub fn len(&self) -> usize {
        self.joints.len().saturating_mul(PER_JOINT)
    }

    /// Whether the set has no pose (no joint is used).
    pub fn is_empty(&self) -> bool {
        self.joints.is_empty()
    }

    /// Pose `k`: the joint (node) it turns, the axis and the angle.
    pub fn turn_at(&self, k: usize) -> Option<(usize, Axis, f64)> {
        let joint = self.joints.get(k / PER_JOINT).copied()?;
        let axis = match (k % PER_JOINT) / 2 {
            0 => Axis::X,
            1 => Axis::Y,
            _ => Axis::Z,
        };
        let degrees = if k.is_multiple_of(2) {
            MOTION_DEGREES
        } else {
            -MOTION_DEGREES
        };
        Some((joint, axis, degrees))
    }

    /// Pose `k`, its joint named from `names` (node names by index).
    pub fn pose(&self, k: usize, names: &dyn Fn(usize) -> Option<String>) -> Option<MotionPose> {
        let (joint, axis, degrees) = self.turn_at(k)?;
        Some(MotionPose {
            index: k,
            joint,
            name: names(joint),
            axis,
            degrees,
        })
    }
}

/// Turns `local` by `degrees` about its own `axis`: the rotation r becomes r × q, q the
/// turn (a `matrix` node is decomposed first, as a pose file's channels do), so the
/// node's translation and scale stay and its children turn with it.
pub fn turn(local: &mut Local, axis: Axis, degrees: f64) {
    let (t, r, s) = match *local {
        Local::Trs { t, r, s } => (t, r, s),
        Local::Matrix(m) => decompose(&m),
    };
    let q = half_turn(axis, degrees);
    *local = Local::Trs {
        t,
        r: normalize(hamilton(r, q)),
        s,
    };
}

/// The quaternion of a turn by `degrees` about `axis`. For ±45° (the only angle the set
/// uses) the half-angle's sine and cosine come from square roots, which IEEE 754 rounds
/// exactly, so the bits are the same on every platform.
fn half_turn(axis: Axis, degrees: f64) -> [f64; 4] {
    let (sin, cos) = if degrees.abs() == 45.0 {
        // cos 45° = √½; cos 22.5° = √((1 + cos 45°) / 2), sin 22.5° = √((1 − cos 45°) / 2).
        let c45 = 0.5f64.sqrt();
        (
            ((1.0 - c45) / 2.0).sqrt().copysign(degrees),
            ((1.0 + c45) / 2.0).sqrt(),
        )
    } else {
        let h = degrees.to_radians() / 2.0;
        (h.sin(), h.cos())
    };
    match axis {
        Axis::X => [sin, 0.0, 0.0, cos],
        Axis::Y => [0.0, sin, 0.0, cos],
        Axis::Z => [0.0, 0.0, sin, cos],
    }
}

/// The quaternion product a × b (x, y, z, w): b's turn, then a's.
fn hamilton(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::transform_point;

    #[test]
    fn the_set_is_six_turns_per_joint() {
        // spec: LR1
        let set = RangeOfMotion::new([7, 3, 7]);
        assert_eq!(set.joints(), [3, 7]);
        assert_eq!(set.len(), 12);
        let names = |n: usize| (n == 3).then(|| "arm".to_owned());
        let p = set.pose(0, &names).unwrap();
        assert_eq!((p.joint, p.axis, p.degrees), (3, Axis::X, 45.0));
        assert_eq!(
            p.describe(),
            "in range-of-motion pose 0: joint node 3 (\"arm\") turned +45\u{b0} about its local X axis"
        );
        let p = set.pose(5, &names).unwrap();
        assert_eq!((p.joint, p.axis, p.degrees), (3, Axis::Z, -45.0));
        let p = set.pose(8, &names).unwrap();
        assert_eq!((p.joint, p.axis, p.degrees), (7, Axis::Y, 45.0));
        assert_eq!(p.name, None);
        assert_eq!(set.turn_at(11), Some((7, Axis::Z, -45.0)));
        assert!(set.pose(12, &names).is_none());
        assert!(set.turn_at(12).is_none());
        assert_eq!(RangeOfMotion::new([]).len(), 0);
    }

    #[test]
    fn a_turn_is_about_the_joints_own_axes() {
        // A joint already turned 90° about Z, at (0, 1, 0): a further +45° about its own
        // X axis (the parent's Y) takes a point on its local Y to (−cos 45°, 0, sin 45°)
        // relative to the joint.
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let mut l = Local::Trs {
            t: [0.0, 1.0, 0.0],
            r: [0.0, 0.0, h, h],
            s: [1.0; 3],
        };
        turn(&mut l, Axis::X, 45.0);
        let p = transform_point(&l.matrix(), [0.0, 1.0, 0.0]);
        for (x, y) in p.iter().zip([-h, 1.0, h]) {
            assert!((x - y).abs() < 1e-12, "{p:?}");
        }
        // The same on a matrix node.
        let mut m = Local::Matrix(
            Local::Trs {
                t: [0.0, 1.0, 0.0],
                r: [0.0, 0.0, h, h],
                s: [1.0; 3],
            }
            .matrix(),
        );
        turn(&mut m, Axis::X, 45.0);
        let q = transform_point(&m.matrix(), [0.0, 1.0, 0.0]);
        for (x, y) in q.iter().zip(p) {
            assert!((x - y).abs() < 1e-12, "{q:?}");
        }
        // The exact half-angle agrees with the library's.
        let s = half_turn(Axis::Y, -45.0);
        assert!((s[1] - (-22.5f64).to_radians().sin()).abs() < 1e-15);
        assert!((s[3] - 22.5f64.to_radians().cos()).abs() < 1e-15);
    }
}
