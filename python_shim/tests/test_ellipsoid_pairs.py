"""An ellipsoid against a sphere, capsule, ellipsoid, cylinder or box, against MuJoCo 4.0 (the
installed Python package), which collides them by its native convex collision (GJK, then EPA
where they overlap; one contact, its multi-contact search skipping ellipsoids): random poses from
apart to deep overlap, with and without a margin.  The count always; the depth to EPA's tolerance
(with a margin, to GJK's convergence on the inflated shapes: up to 1e-4 against a sphere); the
whole contact (position and frame to 1e-5) in most states, from 55 % (two ellipsoids with a
margin) to 95 % (a sphere): elsewhere EPA's normal is up to 8° apart where deep overlaps leave it
a choice.  MuJoCo 2.2.2's MPR (``rules="2.2.2"``) agrees in no state (depths up to 8 cm
off), which the last test checks, so that the comparison can fail."""

import numpy as np
import pytest
import zwang
from test_mesh_collision import OTHERS as MESH_OTHERS
from test_mesh_collision import contacts_of_both, same_sets

mujoco = pytest.importorskip("mujoco")

PAIR = """<mujoco>
  <worldbody>
    <body name="A"><freejoint/>
      <geom type="ellipsoid" size="0.1 0.07 0.05" margin="{margin}"/></body>
    <body name="B"><freejoint/><geom {geom} margin="{margin}"/></body>
  </worldbody>
</mujoco>"""

# the geoms of the mesh tests but the mesh
OTHERS = {name: geom for name, geom in MESH_OTHERS.items() if name != "mesh"}


def pairs(tmp_path, other, margin, seed, rules="4.0", n=800):
    rng = np.random.default_rng(seed)
    path = tmp_path / "pair.xml"
    path.write_text(PAIR.format(geom=OTHERS[other], margin=margin))
    z = zwang.load(str(path), rules=rules)
    m = mujoco.MjModel.from_xml_path(str(path))
    qpos = np.zeros((n, 14))
    for b in range(2):
        q = rng.normal(size=(n, 4))
        qpos[:, 7 * b + 3 : 7 * b + 7] = q / np.linalg.norm(q, axis=1, keepdims=True)
    qpos[:, 7:10] = rng.normal(size=(n, 3)) * 0.1
    return contacts_of_both(z, m, qpos)


# the share of states where the whole contact agrees, measured, less five points
FLOOR = {
    0.0: {"sphere": 0.93, "capsule": 0.82, "ellipsoid": 0.65, "cylinder": 0.69, "box": 0.83},
    0.01: {"sphere": 0.72, "capsule": 0.6, "ellipsoid": 0.57, "cylinder": 0.57, "box": 0.67},
}


@pytest.mark.parametrize("margin", [0.0, 0.01])
@pytest.mark.parametrize("other", list(OTHERS))
def test_ellipsoid_pairs_match_mujoco4(tmp_path, other, margin):
    states = exact = 0
    depth_tol = 2e-6 if margin == 0 else 2e-4
    for ours, theirs in pairs(tmp_path, other, margin, seed=len(other)):
        assert len(ours) == len(theirs)
        if not theirs:
            continue
        states += 1
        assert abs(ours[0][0] - theirs[0][0]) < depth_tol, (ours[0][0], theirs[0][0])
        # EPA's normals within 8° where they differ (measured: 7° at most, a capsule with margin)
        assert np.dot(ours[0][2][:3], theirs[0][2][:3]) > np.cos(np.radians(8))
        exact += same_sets(ours, theirs)
    assert states > 150
    assert exact > FLOOR[margin][other] * states, f"{exact} of {states}"


def test_mujoco2_rules_give_2_2_2s_contacts(tmp_path):
    touching = same = 0
    for ours, theirs in pairs(tmp_path, "box", 0.0, seed=1, rules="2.2.2", n=200):
        touching += len(theirs) > 0
        same += len(theirs) > 0 and same_sets(ours, theirs)
    assert touching > 20 and same < 0.1 * touching
