#!/usr/bin/env python3
"""Bursts and malformed clouds against a running dise_normals_node, on loopback only.

Starts its own rosmaster on a free port of 127.0.0.1 and its own node (build/apps/dise_normals_node,
~k_search 32 by default), publishes clouds of --points points (a noisy sphere) at --rate Hz for
--seconds, then each malformed kind once, then one good cloud. Reports how many clouds were answered,
the latency of the answers (publish to reply, by header stamp), the node's resident memory over the
burst (sampled from /proc), and for each malformed kind whether the node logged it and lived on.
Stops only the two processes it started. Needs Debian's python3-rospy and python3-sensor-msgs; run
it with /usr/bin/python3.

Usage: /usr/bin/python3 scripts/bench_ros_node.py [--build build] [--points 50000] [--rate 10]
       [--seconds 20] [--k 32]
"""
import argparse
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

try:
    import rospy
    from sensor_msgs.msg import PointCloud2, PointField
except ImportError:
    sys.exit("needs python3-rospy and python3-sensor-msgs (apt-get install python3-rospy python3-sensor-msgs); "
             "run with /usr/bin/python3")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sphere_cloud(points, seq):
    rng = np.random.default_rng(seq)
    xyz = rng.normal(size=(points, 3))
    xyz /= np.linalg.norm(xyz, axis=1, keepdims=True)
    xyz += rng.normal(scale=0.005, size=xyz.shape)
    message = PointCloud2()
    message.header.frame_id = "sensor"
    message.header.seq = seq
    message.height, message.width = 1, points
    message.fields = [PointField(name, 4 * i, PointField.FLOAT32, 1) for i, name in enumerate("xyz")]
    message.is_bigendian = False
    message.point_step, message.row_step = 12, 12 * points
    message.data = xyz.astype("<f4").tobytes()
    message.is_dense = True
    return message


def malformed(good):
    """(name, the ROS_ERROR text expected, message) for each kind of broken layout."""
    def copy():
        m = PointCloud2()
        m.header, m.height, m.width = good.header, good.height, good.width
        m.fields = [PointField(f.name, f.offset, f.datatype, f.count) for f in good.fields]
        m.is_bigendian, m.point_step, m.row_step = good.is_bigendian, good.point_step, good.row_step
        m.data, m.is_dense = good.data, good.is_dense
        return m

    kinds = []
    m = copy(); m.width = 1000; m.point_step = 1 << 20; m.row_step = m.point_step * m.width
    kinds.append(("point_step 1 MiB x 1,000 points, data for 50,000 x 12 B", "data holds", m))
    m = copy(); m.width = 1000; m.row_step = 12000; m.data = bytes(100)
    kinds.append(("100 bytes for 1,000 points", "data holds 100 bytes", m))
    m = copy(); m.point_step = 4; m.row_step = 4 * m.width; m.data = good.data[: m.row_step]
    kinds.append(("point_step 4, smaller than x/y/z", "reaches past point_step", m))
    m = copy(); m.row_step = 8; m.data = good.data[:8]
    kinds.append(("row_step shorter than its points", "is less than point_step", m))
    m = copy(); m.fields[0].datatype = PointField.INT32
    kinds.append(("x of an integer type", "is of type 5", m))
    m = copy(); m.is_bigendian = True
    kinds.append(("big-endian data", "big-endian", m))
    m = copy(); m.fields = m.fields[:2]
    kinds.append(("no z field", "no 'z' field", m))
    m = copy(); m.fields[1].offset = 4000
    kinds.append(("y field far past the point", "field 'y' (offset 4000", m))
    return kinds


def resident_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--points", type=int, default=50000)
    parser.add_argument("--rate", type=float, default=10)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--k", type=int, default=32)
    args = parser.parse_args()
    node_binary = os.path.join(args.build, "apps", "dise_normals_node")
    if not os.path.exists(node_binary):
        sys.exit(f"{node_binary} not found: build with ROS 1 (scripts/install_deps.sh, scripts/build.sh)")

    work = tempfile.mkdtemp(prefix="bench_ros_node_")
    port = free_port()
    env = dict(os.environ, ROS_MASTER_URI=f"http://127.0.0.1:{port}", ROS_IP="127.0.0.1", ROS_HOME=work)
    os.environ.update(env)
    started = []
    try:
        started.append(subprocess.Popen(["rosmaster", "--core", "-p", str(port)], env=env,
                                        stdout=open(os.path.join(work, "master.log"), "w"), stderr=subprocess.STDOUT))
        node_log = os.path.join(work, "node.log")
        node = subprocess.Popen([node_binary, "__name:=dise", f"_k_search:={args.k}"], env=env,
                                stdout=open(node_log, "w"), stderr=subprocess.STDOUT)
        started.append(node)
        rospy.init_node("bench_ros_node", anonymous=True, disable_signals=True)
        sent, answered = {}, {}
        lock = threading.Lock()

        # Clouds are told apart by their stamps (seconds = the cloud's number): the node copies the
        # header, and rospy overwrites header.seq on publishing.
        def on_reply(reply):
            with lock:
                answered[reply.header.stamp.secs] = time.perf_counter()

        rospy.Subscriber("/dise/output", PointCloud2, on_reply, queue_size=10)
        publisher = rospy.Publisher("/dise/input", PointCloud2, queue_size=1)
        deadline = time.time() + 30
        while (publisher.get_num_connections() == 0) and time.time() < deadline:
            time.sleep(0.1)
        if publisher.get_num_connections() == 0:
            sys.exit("the node did not subscribe within 30 s:\n" + open(node_log).read())
        time.sleep(1.0)  # the node's publisher connects back to our subscriber

        clouds = [sphere_cloud(args.points, seq) for seq in range(8)]
        memory = []
        count = int(args.seconds * args.rate)
        start = time.perf_counter()
        for i in range(count):
            cloud = clouds[i % len(clouds)]
            cloud.header.stamp = rospy.Time(i + 1, 0)
            with lock:
                sent[i + 1] = time.perf_counter()
            publisher.publish(cloud)
            memory.append(resident_mb(node.pid))
            time.sleep(max(0.0, start + (i + 1) / args.rate - time.perf_counter()))
        time.sleep(3.0)  # the last answers
        with lock:
            latencies = sorted(answered[s] - sent[s] for s in answered if s in sent)
        print(f"burst: {count} clouds of {args.points:,} points at {args.rate:g} Hz for {args.seconds:g} s, "
              f"~k_search {args.k}")
        print(f"  answered {len(latencies)} of {count} (the node keeps the latest cloud: queue size 1)")
        if latencies:
            print(f"  latency median {latencies[len(latencies) // 2]:.3f} s, "
                  f"max {latencies[-1]:.3f} s")
        finite = [m for m in memory if m == m]
        if finite:
            print(f"  resident memory: first {finite[0]:.0f} MB, max {max(finite):.0f} MB, last {finite[-1]:.0f} MB")

        print("malformed clouds, one at a time:")
        failures = 0
        good = clouds[0]
        kinds_done = []
        for name, expected, message in malformed(good):
            number = 900000 + len(kinds_done)
            kinds_done.append(name)
            message.header.stamp = rospy.Time(number, 0)
            publisher.publish(message)
            deadline = time.time() + 10
            logged = False
            while time.time() < deadline and not logged:
                time.sleep(0.1)
                logged = expected in open(node_log).read()
            alive = node.poll() is None
            with lock:
                replied = number in answered
            ok = logged and alive and not replied
            failures += not ok
            print(f"  {name:<44} {'logged' if logged else 'NOT LOGGED':<11} "
                  f"{'alive' if alive else 'DIED':<6} {'ANSWERED' if replied else 'skipped'}")
        good.header.stamp = rospy.Time(999999, 0)
        publisher.publish(good)
        deadline = time.time() + 30
        while time.time() < deadline and 999999 not in answered:
            time.sleep(0.1)
        print(f"a good cloud after them: {'answered' if 999999 in answered else 'NOT ANSWERED'}")
        failures += 999999 not in answered
        print(f"resident memory at the end: {resident_mb(node.pid):.0f} MB")
        rospy.signal_shutdown("done")
        return 1 if failures else 0
    finally:
        for process in reversed(started):
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()


if __name__ == "__main__":
    sys.exit(main())
