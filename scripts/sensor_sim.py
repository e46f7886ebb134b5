#!/usr/bin/python3
"""Simulated range sensors scanning mesh scenes, with the hit triangle's normal as the truth
(docs/models.md#real-scans-and-simulated-sensors). The sensor benchmark (bench_sensors.py) scans scenes of the
validation meshes; make_sensor_dataset.py scans scenes of the training meshes and generated shapes.

Scenes (metres): `indoor` is a room corner (floor, two walls, a table) with objects on the table
and the floor; `outdoor` is ground with gabled buildings and objects, for the airborne scanner.

Sensors and their noise (published models; z the depth, r the range):
- kinect:      structured light, 640x480, fx 525; disparity with Gaussian noise of 0.3 units,
               quantised to integers: z = 1 / (3.3309495161 - 0.0030711016 d) (Khoshelham and
               Elberink 2012; ROS openni_camera's constants)
- kinect_measured: the kinect's camera with the noise measured on the real Kinect tables of
               ../shared (experiments/EXPERIMENTS.md, run L4): disparity noise of 0.4 units
               averaged along 1 x 3 pixels of a row, and bumps: white noise smoothed by a Gaussian
               of 2 pixels, scaled to 0.6 units; the depth stored in whole millimetres, as OpenNI
               stores it; seen from about 1 m above the table, as those tabletop frames are
- tof:         time of flight, 512x424, fx 365; axial noise 1.5 mm + 1.5e-3 z; flying pixels:
               at a depth edge, half the pixels take a depth between the two sides
- stereo:      640x480, fx 525, baseline 0.12 m; disparity noise of 0.25 px smoothed over 7x7
               pixels (correlated, as block matching gives)
- terrestrial: a panoramic laser scanner 1.6 m up, 0.15 degree steps; range noise 2 mm
- mobile:      a 32-beam spinning scanner at six stops along a vehicle path, beams -25..+15
               degrees, 0.2 degree azimuth steps, range noise 1 cm: scan lines
- airborne:    a line scanner 300 m up, lines 0.15 m apart, +-15 degrees across track in 0.05
               degree steps; range noise 3 cm
- survey:      an airborne survey as it reaches a user: two overlapping strips 50 m apart, lines
               0.6 m apart, 0.12 degree steps (0.63 m at nadir), range noise 5 cm, the second strip
               misaligned in height by N(0, 5 cm); the coordinates stored as float32 at a
               georeferenced (UTM-sized) offset, as a PCD of the survey keeps them: steps of up to
               0.5 m across the flight lines
- survey_lines: an older airborne survey as CSite2_orig-utm.pcd samples a city: one strip, lines
               1 m apart and dense along each line (0.01 degree steps: 5 cm at nadir), range noise
               5 cm, stored as float32 at a georeferenced offset: runs of points along the lines
Every sensor drops returns whose incidence is more than 80 degrees from the surface normal. The
rays are cast exactly (Moller-Trumbore on the triangles inside each cell's projected box; large
triangles are split first), with no ray-tracing library: Debian's Open3D casts no rays.
"""
import numpy as np
import open3d as o3d
from scipy import ndimage

# Appended, never inserted: make_sensor_dataset.py seeds each sensor's scenes by its place here.
SENSORS = ("kinect", "tof", "stereo", "terrestrial", "mobile", "airborne", "survey", "survey_lines", "kinect_measured")
# The scene each sensor scans.
SCENE_OF = {"kinect": "indoor", "kinect_measured": "indoor", "tof": "indoor", "stereo": "indoor", "terrestrial": "indoor",
            "mobile": "indoor", "airborne": "outdoor", "survey": "outdoor", "survey_lines": "outdoor"}
RANGE_NOISE = {"terrestrial": 2e-3, "mobile": 1e-2, "airborne": 3e-2, "survey": 5e-2, "survey_lines": 5e-2}


def _box(size, centre):
    m = o3d.geometry.TriangleMesh.create_box(*size)
    m.translate(np.asarray(centre, float) - np.asarray(size, float) / 2)
    return m


def _gable(length, width, wall, ridge, centre, angle):
    """A building: a box of height `wall` and a triangular prism roof up to `ridge`."""
    l2, w2 = length / 2, width / 2
    v = np.array([[-l2, -w2, 0], [l2, -w2, 0], [l2, w2, 0], [-l2, w2, 0],
                  [-l2, -w2, wall], [l2, -w2, wall], [l2, w2, wall], [-l2, w2, wall],
                  [-l2, 0, ridge], [l2, 0, ridge]], float)
    f = [[0, 2, 1], [0, 3, 2], [0, 1, 5], [0, 5, 4], [1, 2, 6], [1, 6, 5], [2, 3, 7], [2, 7, 6],
         [3, 0, 4], [3, 4, 7], [4, 5, 9], [4, 9, 8], [6, 7, 8], [6, 8, 9], [5, 6, 9], [7, 4, 8]]
    c, s = np.cos(angle), np.sin(angle)
    v = v @ np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]).T + np.asarray(centre, float)
    return o3d.geometry.TriangleMesh(o3d.utility.Vector3dVector(v), o3d.utility.Vector3iVector(np.array(f)))


def _placed(mesh, size, position, rng, upright=False):
    """mesh scaled so that its bounding box's largest side is `size`, turned at random (about
    z only where upright), standing on the plane z = position[2] at position's x, y."""
    m = o3d.geometry.TriangleMesh(mesh)
    v = np.asarray(m.vertices)
    v = (v - v.mean(0)) / np.ptp(v, axis=0).max() * size
    if upright:
        a = rng.uniform(0, 2 * np.pi)
        rot = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
    else:
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        rot = o3d.geometry.get_rotation_matrix_from_quaternion(q)
    v = v @ rot.T
    v += np.array([position[0], position[1], position[2] - v[:, 2].min()])
    m.vertices = o3d.utility.Vector3dVector(v)
    return m


def indoor_scene(objects, rng):
    """(structure meshes, object meshes): a 6 x 6 m room corner, a table, `objects` set on the
    table (the first half) and the floor."""
    structure = [_box((6, 6, 0.02), (0, 0, -0.01)), _box((0.02, 6, 2.6), (3, 0, 1.3)),
                 _box((6, 0.02, 2.6), (0, 3, 1.3)), _box((1.4, 0.9, 0.04), (0.8, 0.9, 0.73))]
    for dx in (-0.62, 0.62):
        for dy in (-0.38, 0.38):
            structure.append(_box((0.05, 0.05, 0.71), (0.8 + dx, 0.9 + dy, 0.355)))
    placed = []
    on_table = (len(objects) + 1) // 2
    for i, mesh in enumerate(objects):
        if i < on_table:
            x = 0.8 + (i - (on_table - 1) / 2) * 1.1 / max(on_table, 1)
            placed.append(_placed(mesh, rng.uniform(0.25, 0.4), (x, 0.9 + rng.uniform(-0.2, 0.2), 0.75), rng))
        else:
            j = i - on_table
            placed.append(_placed(mesh, rng.uniform(0.5, 0.8), (2.1 - 0.9 * j, 2.2 - 0.3 * (j % 2), 0.0), rng,
                                  upright=True))
    return structure, placed


def outdoor_scene(objects, rng):
    """(structure meshes, object meshes): 120 x 120 m of ground, gabled buildings, objects of 4 to 10 m."""
    structure = [_box((120, 120, 0.1), (0, 0, -0.05))]
    for bx in (-35, 0, 35):
        for by in (-35, 35):
            structure.append(_gable(rng.uniform(12, 24), rng.uniform(8, 14), rng.uniform(4, 9),
                                    rng.uniform(10, 15), (bx + rng.uniform(-5, 5), by + rng.uniform(-5, 5), 0),
                                    rng.uniform(0, np.pi)))
    placed = [_placed(mesh, rng.uniform(4, 10), (-30 + 20 * i, rng.uniform(-8, 8), 0), rng, upright=True)
              for i, mesh in enumerate(objects)]
    return structure, placed


class _Raster:
    """A sensor's rays on a grid of (row, col) cells: `project` maps points (N x 3) to continuous
    (row, col) and a validity flag; `ray` gives the origin and direction (not unit) of the cells' rays."""

    def __init__(self, shape, project, ray, wraps=False):
        self.shape, self.project, self.ray, self.wraps = shape, project, ray, wraps


def _pinhole(eye, target, width, height, fx):
    forward = np.asarray(target, float) - eye
    forward /= np.linalg.norm(forward)
    right = np.cross(forward, [0, 0, 1.0])
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    cx, cy = (width - 1) / 2, (height - 1) / 2

    def project(p):
        q = p - eye
        z = q @ forward
        ok = z > 0.05
        z = np.where(ok, z, 1.0)
        return np.stack([(q @ down) / z * fx + cy, (q @ right) / z * fx + cx], -1), ok

    def ray(rows, cols):
        d = forward + ((cols - cx) / fx)[..., None] * right + ((rows - cy) / fx)[..., None] * down
        return np.broadcast_to(eye, d.shape), d  # the ray parameter is the depth along `forward`

    return _Raster((height, width), project, ray)


def _spherical(origin, az_step, el_from, el_rows, el_step):
    """A panoramic scanner: columns are azimuth steps from 0, rows elevations from el_from."""
    cols = int(round(2 * np.pi / az_step))

    def project(p):
        q = p - origin
        az = np.mod(np.arctan2(q[..., 1], q[..., 0]), 2 * np.pi)
        el = np.arctan2(q[..., 2], np.hypot(q[..., 0], q[..., 1]))
        return np.stack([(el - el_from) / el_step, az / az_step], -1), np.linalg.norm(q, axis=-1) > 0.05

    def ray(rows, cols_):
        az, el = cols_ * az_step, el_from + rows * el_step
        d = np.stack([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)], -1)
        return np.broadcast_to(origin, d.shape), d

    return _Raster((el_rows, cols), project, ray, wraps=True)


def _pushbroom(x0, dx, lines, height, angle_from, angle_step, samples, y0=0.0):
    """An airborne line scanner flying along x at `height` over y = y0: line i at x0 + i dx, its
    rays in the y-z plane, angle_from + j angle_step from the nadir."""

    def project(p):
        return np.stack([(p[..., 0] - x0) / dx,
                         (np.arctan2(p[..., 1] - y0, height - p[..., 2]) - angle_from) / angle_step],
                        -1), p[..., 2] < height - 1

    def ray(rows, cols):
        a = angle_from + cols * angle_step
        d = np.stack([np.zeros_like(a), np.sin(a), -np.cos(a)], -1)
        o = np.stack([x0 + rows * dx, np.full_like(a, y0), np.full_like(a, height)], -1)
        return o, d

    return _Raster((lines, samples), project, ray)


def _cast(raster, vertices, triangles, triangle_ids):
    """Exact first hits of the raster's rays on the triangles (vertices V x 3, triangles T x 3):
    every triangle is tried against the cells inside its projected box (the triangles must be
    small next to the projection's curvature: subdivide large ones). Returns per cell the ray
    parameter t (inf: no hit), the hit triangle's unit normal and its id (triangle_ids, -1: none)."""
    rows, cols = raster.shape
    uv, ok = raster.project(vertices)
    tri_uv = uv[triangles]  # T x 3 x 2
    ok = ok[triangles].all(1)
    if raster.wraps:  # a triangle across azimuth 0: its far side moved below 0, its cells taken modulo
        span = np.ptp(tri_uv[..., 1], axis=1) > cols / 2
        tri_uv[span, :, 1] = np.where(tri_uv[span, :, 1] > cols / 2, tri_uv[span, :, 1] - cols, tri_uv[span, :, 1])
    lo = np.ceil(tri_uv.min(1) - 0.5).astype(np.int64)
    hi = np.floor(tri_uv.max(1) + 0.5).astype(np.int64)
    size = hi - lo + 1
    keep = ok & (size.min(1) > 0) & (hi[:, 0] >= 0) & (lo[:, 0] < rows) & (size.max(1) <= 64)
    if not raster.wraps:
        keep &= (hi[:, 1] >= 0) & (lo[:, 1] < cols)
    best_t = np.full(rows * cols, np.inf)
    best_tri = np.full(rows * cols, -1, np.int64)
    a, b, c = (vertices[triangles[:, k]] for k in range(3))
    e1, e2 = b - a, c - a
    normals = np.cross(e1, e2)
    normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-300)
    idx = np.nonzero(keep)[0]
    # Candidates in groups of equal box size class, so that each group is one array.
    cls = np.ceil(np.log2(np.maximum(size[idx], 1))).astype(int)
    for key in np.unique(cls[:, 0] * 16 + cls[:, 1]):
        group = idx[cls[:, 0] * 16 + cls[:, 1] == key]
        h, w = 2 ** (key // 16), 2 ** (key % 16)
        for start in range(0, len(group), max(1, 4_000_000 // (h * w))):
            g = group[start:start + max(1, 4_000_000 // (h * w))]
            dr, dc = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
            r = lo[g, 0][:, None] + dr.reshape(1, -1)
            q = lo[g, 1][:, None] + dc.reshape(1, -1)
            inside = (r <= hi[g, 0][:, None]) & (q <= hi[g, 1][:, None]) & (r >= 0) & (r < rows)
            if not raster.wraps:
                inside &= (q >= 0) & (q < cols)
            t_idx = np.broadcast_to(g[:, None], r.shape)[inside]
            r, q = r[inside], np.mod(q[inside], cols)
            o, d = raster.ray(r.astype(float), q.astype(float))
            # Moller-Trumbore
            pvec = np.cross(d, e2[t_idx])
            det = np.einsum("ij,ij->i", e1[t_idx], pvec)
            inv = 1.0 / np.where(np.abs(det) > 1e-18, det, np.nan)
            tvec = o - a[t_idx]
            u = np.einsum("ij,ij->i", tvec, pvec) * inv
            qvec = np.cross(tvec, e1[t_idx])
            v = np.einsum("ij,ij->i", d, qvec) * inv
            t = np.einsum("ij,ij->i", e2[t_idx], qvec) * inv
            hit = (u >= 0) & (v >= 0) & (u + v <= 1) & (t > 1e-6)
            cell = (r * cols + q)[hit]
            t, tri = t[hit], t_idx[hit]
            order = np.lexsort((t, cell))
            cell, t, tri = cell[order], t[order], tri[order]
            first = np.ones(len(cell), bool)
            first[1:] = cell[1:] != cell[:-1]
            cell, t, tri = cell[first], t[first], tri[first]
            closer = t < best_t[cell]
            best_t[cell[closer]] = t[closer]
            best_tri[cell[closer]] = tri[closer]
    found = best_tri >= 0
    n = np.zeros((rows * cols, 3))
    n[found] = normals[best_tri[found]]
    ids = np.full(rows * cols, -1, np.int64)
    ids[found] = triangle_ids[best_tri[found]]
    return best_t.reshape(rows, cols), n.reshape(rows, cols, 3), ids.reshape(rows, cols)


def _subdivided(mesh, edge):
    """mesh with its triangles split until no edge is longer than `edge`."""
    m = o3d.geometry.TriangleMesh(mesh)
    for _ in range(12):
        v, f = np.asarray(m.vertices), np.asarray(m.triangles)
        longest = max(np.linalg.norm(v[f[:, i]] - v[f[:, (i + 1) % 3]], axis=1).max() for i in range(3))
        if longest <= edge:
            break
        m = m.subdivide_midpoint(1)
    return m


class Scan:
    """A scan's points (N x 3 float64), true normals (N x 3, unit), and whether each hit an object."""

    def __init__(self, points, normals, on_object):
        self.points, self.normals, self.on_object = points, normals, on_object


def _scene_arrays(structure, objects, edge):
    vertices, triangles, ids = [], [], []
    offset = 0
    for gid, m in enumerate(structure + objects):
        m = _subdivided(m, edge)
        v, f = np.asarray(m.vertices, float), np.asarray(m.triangles, np.int64)
        vertices.append(v)
        triangles.append(f + offset)
        ids.append(np.full(len(f), gid))
        offset += len(v)
    return np.concatenate(vertices), np.concatenate(triangles), np.concatenate(ids)


def scan(sensor, structure, objects, rng):
    """Scans the scene (structure and object meshes) with `sensor` (one of SENSORS)."""
    if sensor == "kinect_measured":  # a tabletop view, as the real frames whose noise it has: about 1 m away
        eye = np.array([0.3, 0.35, 1.3]) + rng.uniform(-0.1, 0.1, 3)
        target = np.array([0.85, 0.95, 0.73]) + rng.uniform(-0.1, 0.1, 3)
        width, height, fx = 640, 480, 525.0
        rasters, edge = [_pinhole(eye, target, width, height, fx)], 0.05
    elif sensor in ("kinect", "tof", "stereo"):
        eye = np.array([-1.6, -1.4, 1.5]) + rng.uniform(-0.3, 0.3, 3)
        target = np.array([0.9, 1.0, 0.7]) + rng.uniform(-0.2, 0.2, 3)
        width, height, fx = (512, 424, 365.0) if sensor == "tof" else (640, 480, 525.0)
        rasters, edge = [_pinhole(eye, target, width, height, fx)], 0.05
    elif sensor == "terrestrial":
        origin = np.array([-1.0, -1.2, 1.6]) + rng.uniform(-0.3, 0.3, 3)
        step = np.radians(0.15)
        rasters, edge = [_spherical(origin, step, np.radians(-60), 600, step)], 0.05
    elif sensor == "mobile":
        rasters = [_spherical(np.array([x, -1.8, 1.9]), np.radians(0.2), np.radians(-25), 32, np.radians(40 / 31))
                   for x in np.linspace(-2.5, 1.5, 6)]
        edge = 0.05
    elif sensor == "airborne":
        step = np.radians(0.05)
        rasters, edge = [_pushbroom(-60, 0.15, 800, 300.0, np.radians(-15), step, 600)], 2.0
    elif sensor == "survey":
        step = np.radians(0.12)
        rasters, edge = [_pushbroom(-60, 0.6, 200, 300.0, np.radians(-15), step, 250, y0) for y0 in (-25, 25)], 2.0
    else:  # survey_lines
        step = np.radians(0.01)
        rasters, edge = [_pushbroom(-60, 1.0, 120, 300.0, np.radians(-12), step, 2400)], 2.0
    vertices, triangles, ids = _scene_arrays(structure, objects, edge)
    object_ids = np.arange(len(structure), len(structure) + len(objects))
    points, normals, on_object = [], [], []
    for strip, raster in enumerate(rasters):
        t, n, g = _cast(raster, vertices, triangles, ids)
        rows, cols = np.meshgrid(np.arange(raster.shape[0], dtype=float), np.arange(raster.shape[1], dtype=float),
                                 indexing="ij")
        o, d = raster.ray(rows, cols)
        incidence = np.abs(np.sum(n * d, -1)) / np.linalg.norm(d, axis=-1)
        hit = np.isfinite(t) & (incidence > np.cos(np.radians(80)))
        t = np.where(hit, t, np.nan)
        if sensor in ("kinect", "kinect_measured", "tof", "stereo"):
            t = _depth_noise(sensor, np.where((t > 0.5) & (t < 6.0), t, np.nan), fx, rng)
        else:
            t = t + rng.normal(0, RANGE_NOISE[sensor], t.shape)
        p = o + d * t[..., None]
        if sensor == "survey" and strip == 1:
            p = p + [0, 0, rng.normal(0, 0.05)]
        keep = np.isfinite(p).all(-1)
        points.append(p[keep])
        normals.append(n[keep])
        on_object.append(np.isin(g[keep], object_ids))
    points = np.concatenate(points)
    if sensor in ("survey", "survey_lines"):
        points = stored_as_float32(points, rng)
    return Scan(points, np.concatenate(normals), np.concatenate(on_object))


def stored_as_float32(points, rng):
    """points (N x 3, metres) as a float32 file keeps them at a georeferenced offset (UTM easting
    170-830 km, northing 1,000-8,000 km, height 0-500 m), the offset then taken off in double."""
    offset = np.array([rng.uniform(1.7e5, 8.3e5), rng.uniform(1e6, 8e6), rng.uniform(0, 500)]).round()
    return (points + offset).astype(np.float32).astype(np.float64) - offset


def _depth_noise(sensor, z, fx, rng):
    """A depth camera's depth image z (rows x cols, NaN where none) as the sensor measures it."""
    if sensor == "kinect":
        disparity = (3.3309495161 - 1.0 / z) / 0.0030711016 + rng.normal(0, 0.3, z.shape)
        return 1.0 / (3.3309495161 - 0.0030711016 * np.round(disparity))
    if sensor == "kinect_measured":
        rows = np.apply_along_axis(lambda r: np.convolve(r, np.ones(3) / 3.0, "same"), 1, rng.normal(0, 1, z.shape))
        bumps = ndimage.gaussian_filter(rng.normal(0, 1, z.shape), 2.0)
        noise = rows * np.sqrt(3.0) * 0.4 + bumps / bumps.std() * 0.6
        disparity = (3.3309495161 - 1.0 / z) / 0.0030711016 + noise
        return np.round(1000.0 / (3.3309495161 - 0.0030711016 * disparity)) / 1000.0
    if sensor == "tof":
        measured = z + rng.normal(0, 1, z.shape) * (1.5e-3 + 1.5e-3 * z)
        # Flying pixels: where a neighbour lies more than 5% nearer or farther, half the pixels
        # take a depth between the two.
        zp = np.pad(z, 1, constant_values=np.nan)
        around = np.stack([zp[1:-1, 2:], zp[1:-1, :-2], zp[2:, 1:-1], zp[:-2, 1:-1]])
        gap = np.nan_to_num(np.abs(around - z), nan=0.0)
        far = np.take_along_axis(around, gap.argmax(0)[None], 0)[0]
        flying = (gap.max(0) > 0.05 * np.nan_to_num(z, nan=np.inf)) & np.isfinite(far) & (rng.random(z.shape) < 0.5)
        return np.where(flying, measured + rng.random(z.shape) * (far - measured), measured)
    # stereo: disparity noise of 0.25 px, correlated over 7 x 7 pixels
    baseline, kernel = 0.12, np.ones(7) / 7.0
    noise = rng.normal(0, 1, z.shape)
    noise = np.apply_along_axis(lambda row: np.convolve(row, kernel, "same"), 1, noise)
    noise = np.apply_along_axis(lambda col: np.convolve(col, kernel, "same"), 0, noise) * 7.0 * 0.25
    return fx * baseline / (fx * baseline / z + noise)


def load_meshes(paths):
    meshes = []
    for p in paths:
        m = o3d.io.read_triangle_mesh(p)
        if len(m.triangles) == 0:
            raise RuntimeError(f"{p}: no triangles")
        meshes.append(m)
    return meshes


def generated_shapes(count, rng):
    """Boxes, cylinders, cones, tori and spheres of random proportions (sharp edges and curved faces)."""
    shapes = []
    for i in range(count):
        kind = i % 5
        if kind == 0:
            m = o3d.geometry.TriangleMesh.create_box(*rng.uniform(0.3, 1.0, 3))
        elif kind == 1:
            m = o3d.geometry.TriangleMesh.create_cylinder(rng.uniform(0.15, 0.5), rng.uniform(0.3, 1.0), 48, 4)
        elif kind == 2:
            m = o3d.geometry.TriangleMesh.create_cone(rng.uniform(0.2, 0.5), rng.uniform(0.3, 1.0), 48, 4)
        elif kind == 3:
            m = o3d.geometry.TriangleMesh.create_torus(0.5, rng.uniform(0.1, 0.25), 48, 24)
        else:
            m = o3d.geometry.TriangleMesh.create_sphere(0.5, 40)
        shapes.append(m)
    return shapes
