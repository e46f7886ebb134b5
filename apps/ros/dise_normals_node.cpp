// dise_normals_node: DISE normals for sensor_msgs/PointCloud2 (ROS 1).
// Subscribes ~input, publishes ~output (x y z normal_x normal_y normal_z curvature, same header
// and layout). Parameters follow pcl_ros's NormalEstimation (k_search, radius_search) plus
// iterations, model, threads, max_neighbors, the viewpoint (viewpoint_x/y/z, in the cloud's
// frame; PointCloud2 carries no sensor origin, so the frame's origin, where the sensor usually
// sits, is the default) and orient: viewpoint (flip towards it), up (face +z of the cloud's frame:
// an airborne sensor above the ground), mst (consistent orientation along a minimum spanning tree,
// seeded at the viewpoint where one is set, else at the topmost point facing +z), closed (mst,
// then each point's side from an outside grid: clouds of closed objects) or none (the plane fit's
// own sign). They are the library's NormalSettings (k_search 0 with radius_search), run by its
// NormalPipeline.
#include <array>
#include <string>

#include <pcl/point_types.h>
#include <pcl_conversions/pcl_conversions.h>
#include <ros/ros.h>
#include <sensor_msgs/PointCloud2.h>

#include "pcl_dise/feature/normal_pipeline.h"
#include "pcl_dise/io/point_cloud2_xyz.h"

namespace {

class DiseNormalsNode {
 public:
  explicit DiseNormalsNode(ros::NodeHandle& private_nh) : pipeline_(settingsFrom(private_nh)) {
    const pcl_dise::NormalSettings& s = pipeline_.settings();
    publisher_ = private_nh.advertise<sensor_msgs::PointCloud2>("output", 1);
    subscriber_ = private_nh.subscribe("input", 1, &DiseNormalsNode::onCloud, this);
    ROS_INFO("dise_normals_node: %s = %g, %d iterations, model %s, orient %s",
             s.radius > 0 ? "radius_search" : "k_search", s.radius > 0 ? s.radius : double(s.neighbors()), s.iterations,
             s.iterations > 0 ? pipeline_.modelPath().c_str() : "(none: PCA)",
             pcl_dise::orientationName(s.orientation));
  }

 private:
  // The node's parameters as the library's settings (validated by the pipeline).
  static pcl_dise::NormalSettings settingsFrom(ros::NodeHandle& private_nh) {
    pcl_dise::NormalSettings s;
    int threads = 0;
    std::string orient, precision;
    private_nh.param("k_search", s.k, 0);  // 0: not set, as in NormalSettings (64 unless radius_search)
    private_nh.param("radius_search", s.radius, 0.0);
    private_nh.param("max_neighbors", s.max_neighbors, 0);
    private_nh.param("iterations", s.iterations, 4);
    private_nh.param("threads", threads, 0);
    private_nh.param("model", s.model, std::string());
    private_nh.param("settle", s.settle_degrees, 0.0);
    private_nh.param("precision", precision, std::string("float"));
    private_nh.param("orient", orient, std::string("viewpoint"));
    if (threads < 0) throw pcl_dise::OptionsError("threads must not be negative");
    s.threads = static_cast<unsigned>(threads);
    s.orientation = pcl_dise::orientationFromName(orient);
    s.precision = pcl_dise::precisionFromString(precision);
    if (private_nh.hasParam("viewpoint_x") || private_nh.hasParam("viewpoint_y") ||
        private_nh.hasParam("viewpoint_z")) {
      std::array<double, 3> v{0, 0, 0};
      private_nh.param("viewpoint_x", v[0], 0.0);
      private_nh.param("viewpoint_y", v[1], 0.0);
      private_nh.param("viewpoint_z", v[2], 0.0);
      s.viewpoint = v;
    }
    return s;
  }

  void onCloud(const sensor_msgs::PointCloud2::ConstPtr& message) {
    // Exceptions must not escape into roscpp's spinner: a bad cloud is logged and skipped.
    try {
      publisher_.publish(estimate(*message));
    } catch (const std::exception& e) {
      ROS_ERROR("dise_normals_node: cloud of %u x %u points in frame '%s' skipped: %s", message->width, message->height,
                message->header.frame_id.c_str(), e.what());
    }
  }

  sensor_msgs::PointCloud2 estimate(const sensor_msgs::PointCloud2& message) {
    auto cloud = pcl::make_shared<pcl::PointCloud<pcl::PointXYZ>>();
    pcl_dise::xyzFromPointCloud2(message, *cloud);  // checks the layout before reading a byte
    pcl::PointCloud<pcl::PointNormal> out;
    out.resize(cloud->size());
    for (std::size_t i = 0; i < cloud->size(); ++i) {
      out[i].x = (*cloud)[i].x, out[i].y = (*cloud)[i].y, out[i].z = (*cloud)[i].z;
    }
    out.width = cloud->width;
    out.height = cloud->height;
    out.is_dense = cloud->is_dense;
    if (!cloud->empty()) {
      pcl::PointCloud<pcl::Normal> normals;
      pipeline_.compute(cloud, normals);
      for (std::size_t i = 0; i < cloud->size(); ++i) {
        std::copy(normals[i].normal, normals[i].normal + 3, out[i].normal);
        out[i].curvature = normals[i].curvature;
      }
      out.is_dense = normals.is_dense;
    }
    sensor_msgs::PointCloud2 reply;
    pcl::toROSMsg(out, reply);
    reply.header = message.header;
    return reply;
  }

  pcl_dise::NormalPipeline pipeline_;
  ros::Publisher publisher_;
  ros::Subscriber subscriber_;
};

}  // namespace

int main(int argc, char** argv) {
  ros::init(argc, argv, "dise_normals");
  ros::NodeHandle private_nh("~");
  try {
    DiseNormalsNode node(private_nh);
    ros::spin();
  } catch (const std::exception& e) {
    ROS_FATAL("dise_normals_node: %s", e.what());
    return 1;
  }
  return 0;
}
