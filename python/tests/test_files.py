"""read_cloud, write_cloud and estimate_normals_file: round trips, LAS records, tiles, progress."""
import os

import numpy as np
import pytest

import pcl_dise
from conftest import REPO, wavy_surface

LAS_SOURCE = REPO / "fuzz" / "corpus" / "las" / "v12_format1.las"


@pytest.mark.parametrize("extension", [".pcd", ".ply", ".las", ".laz", ".xyz"])
def test_round_trip(tmp_path, extension):
    points = wavy_surface(2000) + np.array([5e5, 5e6, 300.0])
    normals, curvature = pcl_dise.estimate_normals(points, return_curvature=True)
    path = tmp_path / ("cloud" + extension)
    pcl_dise.write_cloud(path, points, normals, curvature)
    cloud = pcl_dise.read_cloud(path)
    lidar = extension in (".las", ".laz")
    tolerance = 1e-3 if lidar else 0.0  # LAS stores coordinates quantized (1 mm here)
    np.testing.assert_allclose(cloud.points, points, rtol=0, atol=tolerance)
    names = {".pcd": "normal_", ".ply": "normal_", ".las": "Normal", ".laz": "Normal", ".xyz": "n"}[extension]
    axes = "XYZ" if lidar else "xyz"
    read = np.column_stack([cloud.fields[names + c] for c in axes])
    np.testing.assert_array_equal(read.astype(np.float32), normals)
    assert cloud.format == ("las" if lidar else extension[1:])


def test_las_like_its_source_keeps_records_and_vlrs(tmp_path):
    source = pcl_dise.read_cloud(LAS_SOURCE)
    assert {"Intensity", "Classification", "GpsTime", "ReturnNumber"} <= set(source.fields)
    normals = pcl_dise.estimate_normals(source.points, k=8, iterations=0)
    out = tmp_path / "with_normals.las"
    pcl_dise.write_cloud(out, source.points, normals, like=source)
    written = pcl_dise.read_cloud(out)
    np.testing.assert_array_equal(written.points, source.points)
    for name, values in source.fields.items():
        np.testing.assert_array_equal(written.fields[name], values)
        assert written.fields[name].dtype == values.dtype
    np.testing.assert_array_equal(np.column_stack([written.fields["Normal" + c] for c in "XYZ"]), normals)
    # The source's VLRs travel with the records: every byte before the source's points reappears.
    head = LAS_SOURCE.read_bytes()
    vlrs_at, points_at = int.from_bytes(head[94:96], "little"), int.from_bytes(head[96:100], "little")
    assert head[vlrs_at:points_at] in out.read_bytes()
    with pytest.raises(ValueError):
        pcl_dise.write_cloud(tmp_path / "moved.las", source.points + 1, normals, like=source)


def test_laz_like_its_source_keeps_the_las_records(tmp_path):
    # A LAS source written as LAZ holds the records the LAS output holds; read back they are the same.
    source = pcl_dise.read_cloud(LAS_SOURCE)
    normals = pcl_dise.estimate_normals(source.points, k=8, iterations=0)
    pcl_dise.write_cloud(tmp_path / "out.las", source.points, normals, like=source)
    pcl_dise.write_cloud(tmp_path / "out.laz", source.points, normals, like=source)
    las, laz = pcl_dise.read_cloud(tmp_path / "out.las"), pcl_dise.read_cloud(tmp_path / "out.laz")
    np.testing.assert_array_equal(laz.points, las.points)
    assert set(laz.fields) == set(las.fields)
    for name, values in las.fields.items():
        np.testing.assert_array_equal(laz.fields[name], values)


def test_lidar_files_face_up_by_default(tmp_path):
    # A terrain far from the origin, as LAS: estimate_normals_file makes its normals face up (the
    # sensor above) unless told otherwise; an array keeps the viewpoint rule.
    points = wavy_surface(5000, seed=4) + np.array([5e5, 5e6, -300.0])
    source = tmp_path / "terrain.laz"
    pcl_dise.write_cloud(source, points, np.zeros_like(points, dtype=np.float32))
    for options in ({}, {"tile_points": 2000}):  # in memory, in tiles
        pcl_dise.estimate_normals_file(source, tmp_path / "up.laz", iterations=0, progress=None, **options)
        up = pcl_dise.read_cloud(tmp_path / "up.laz").fields["NormalZ"]
        assert (up > 0).mean() == 1.0
    pcl_dise.estimate_normals_file(source, tmp_path / "vp.laz", iterations=0, progress=None, orient="viewpoint",
                                   viewpoint=(5e5, 5e6, -1e4))
    assert (pcl_dise.read_cloud(tmp_path / "vp.laz").fields["NormalZ"] < 0).mean() == 1.0
    normals = pcl_dise.estimate_normals(points, iterations=0, orient="up")
    assert (normals[:, 2] > 0).all()
    with pytest.raises(ValueError):
        pcl_dise.estimate_normals(points, orient="down")


def test_pcd_fields_and_viewpoint():
    cloud = pcl_dise.read_cloud(REPO / "data" / "clouds" / "bun0.pcd")
    assert cloud.points.dtype == np.float64 and cloud.points.shape == (397, 3)
    assert cloud.viewpoint.shape == (7,) and cloud.width == 397 and cloud.height == 1


def test_estimate_normals_file_in_tiles_equals_in_memory(tmp_path):
    points = wavy_surface(60000, seed=3)
    source = tmp_path / "surface.ply"
    pcl_dise.write_cloud(source, points, np.zeros_like(points, dtype=np.float32))
    out = tmp_path / "tiles.ply"
    seen = []
    report = pcl_dise.estimate_normals_file(source, out, tile_points=20000, k=32, progress=seen.append)
    assert report["points"] == len(points) and report["tiles"] >= 2
    assert seen[-1] == 1.0 and all(a <= b for a, b in zip(seen, seen[1:]))
    tiled = pcl_dise.read_cloud(out)
    expected = pcl_dise.estimate_normals(points, k=32)
    np.testing.assert_array_equal(np.column_stack([tiled.fields["normal_" + c] for c in "xyz"]).astype(np.float32),
                                  expected)
    # 60,000 points at k = 32 need about 48 MB in memory: within a budget of 200 MB they run there.
    assert pcl_dise.estimate_normals_file(source, tmp_path / "memory.ply", k=32, max_memory=200)["tiles"] == 0
    np.testing.assert_array_equal(pcl_dise.read_cloud(tmp_path / "memory.ply").fields["normal_x"], expected[:, 0])
    pcl_dise.estimate_normals_file(source, tmp_path / "oriented.xyz", k=32, orient="mst")
    assert (tmp_path / "oriented.xyz").exists()
    with pytest.raises(ValueError, match="needs it in memory"):  # mst where the cloud runs in tiles
        pcl_dise.estimate_normals_file(source, tmp_path / "no.ply", k=32, orient="mst", tile_points=20000)
    # bf16 in tiles: bf16's normals in memory.
    pcl_dise.estimate_normals_file(source, tmp_path / "bf16.ply", tile_points=20000, k=32, precision="bf16")
    tiled = pcl_dise.read_cloud(tmp_path / "bf16.ply")
    np.testing.assert_array_equal(np.column_stack([tiled.fields["normal_" + c] for c in "xyz"]).astype(np.float32),
                                  pcl_dise.estimate_normals(points, k=32, precision="bf16"))


@pytest.mark.parametrize("extension, name", [(".ply", "error_bound"), (".laz", "NormalErrorBound")])
def test_the_error_bound_in_a_file_is_results(tmp_path, extension, name):
    points = wavy_surface(3000, seed=5)
    source = tmp_path / "surface.xyz"
    pcl_dise.write_cloud(source, points, np.zeros_like(points, dtype=np.float32))
    out = tmp_path / ("bounded" + extension)
    pcl_dise.estimate_normals_file(source, out, error_bound=True, k=32, orient="viewpoint", progress=None)
    expected = pcl_dise.estimate_normals(points, k=32, return_error=True)[1]
    np.testing.assert_array_equal(pcl_dise.read_cloud(out).fields[name].astype(np.float32), expected)


def test_the_error_bound_is_refused_where_it_cannot_be_given(tmp_path):
    points = wavy_surface(500, seed=6)
    source = tmp_path / "surface.xyz"
    pcl_dise.write_cloud(source, points, np.zeros_like(points, dtype=np.float32))
    with pytest.raises(ValueError, match="iterations above 0"):
        pcl_dise.estimate_normals_file(source, tmp_path / "a.ply", error_bound=True, iterations=0, progress=None)
    with pytest.raises(ValueError, match="cannot hold the error bound"):
        pcl_dise.estimate_normals_file(source, tmp_path / "a.xyz", error_bound=True, progress=None)
    assert not (tmp_path / "a.ply").exists() and not (tmp_path / "a.xyz").exists()


def test_stopping_a_file_job_leaves_no_output(tmp_path):
    points = wavy_surface(60000, seed=4)
    source = tmp_path / "surface.ply"
    pcl_dise.write_cloud(source, points, np.zeros_like(points, dtype=np.float32))

    def stop(done):
        if done > 0.3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        pcl_dise.estimate_normals_file(source, tmp_path / "out.las", tile_points=20000, progress=stop)
    assert not any(p.name.startswith("out") for p in tmp_path.iterdir())


def test_file_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        pcl_dise.read_cloud(tmp_path / "missing.las")
    truncated = tmp_path / "truncated.las"
    truncated.write_bytes(LAS_SOURCE.read_bytes()[:-7])
    with pytest.raises(OSError, match="truncated.las"):
        pcl_dise.read_cloud(truncated)
    garbage = tmp_path / "garbage.pcd"
    garbage.write_bytes(b"not a cloud")
    with pytest.raises(OSError):
        pcl_dise.read_cloud(garbage)
    unknown = tmp_path / "x.unknown"
    unknown.write_text("1 2 3\n")
    with pytest.raises(OSError):
        pcl_dise.read_cloud(unknown)
    with pytest.raises(OSError):
        pcl_dise.write_cloud(tmp_path / "no_dir" / "out.ply", np.zeros((3, 3)), np.zeros((3, 3)))


def test_empty_files_read_as_empty_clouds(tmp_path):
    empty = tmp_path / "empty.xyz"
    empty.write_text("")
    cloud = pcl_dise.read_cloud(empty)
    assert cloud.points.shape == (0, 3) and cloud.points.dtype == np.float64
    with pytest.raises(ValueError):
        pcl_dise.estimate_normals(cloud.points)
    pcd = tmp_path / "empty.pcd"
    pcd.write_text("VERSION .7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH 0\nHEIGHT 1\n"
                   "VIEWPOINT 0 0 0 1 0 0 0\nPOINTS 0\nDATA ascii\n")
    assert pcl_dise.read_cloud(pcd).points.shape == (0, 3)


def test_fields_that_claim_more_than_the_file_are_refused(tmp_path):
    # A COUNT of a million values per point, 1,000 points, in a file of a few bytes: an error, not 8 GB.
    pcd = tmp_path / "huge_count.pcd"
    pcd.write_text("VERSION .7\nFIELDS x y z h\nSIZE 4 4 4 4\nTYPE F F F F\nCOUNT 1 1 1 1000000\nWIDTH 1000\n"
                   "HEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS 1000\nDATA ascii\n" + "0 0 0 1\n" * 1000)
    with pytest.raises(OSError, match="values each, more than the file holds"):
        pcl_dise.read_cloud(pcd)
