// dise_normals_node: DISE normals for sensor_msgs/PointCloud2 (ROS 1).
// Subscribes ~input, publishes ~output (x y z normal_x normal_y normal_z curvature, same header
// and layout). Parameters follow pcl_ros's NormalEstimation (k_search, radius_search) plus
// iterations, model, threads, max_neighbors, the viewpoint (viewpoint_x/y/z, in the cloud's
// frame; PointCloud2 carries no sensor origin, so the frame's origin, where the sensor usually
// sits, is the default) and orient: viewpoint (flip towards it), up (face +z of the cloud's frame:
// an airborne sensor above the ground), mst (consistent orientation along a minimum spanning tree,
// seeded at the viewpoint where one is set, else at the topmost point facing +z) or none (the
// plane fit's own sign).
#include <memory>

#include <pcl/point_types.h>
#include <pcl_conversions/pcl_conversions.h>
#include <ros/ros.h>
#include <sensor_msgs/PointCloud2.h>

#include "pcl_dise/feature/consistent_normal_orientation.h"
#include "pcl_dise/feature/deep_iterative_normal_estimation.h"
#include "pcl_dise/io/point_cloud2_xyz.h"

namespace {

class DiseNormalsNode {
 public:
  explicit DiseNormalsNode(ros::NodeHandle& private_nh) {
    private_nh.param("k_search", k_, 64);
    private_nh.param("radius_search", radius_, 0.0);
    private_nh.param("max_neighbors", max_neighbors_, 0);
    private_nh.param("iterations", iterations_, 4);
    private_nh.param("threads", threads_, 0);
    private_nh.param("viewpoint_x", viewpoint_[0], 0.0);
    private_nh.param("viewpoint_y", viewpoint_[1], 0.0);
    private_nh.param("viewpoint_z", viewpoint_[2], 0.0);
    viewpoint_set_ =
        private_nh.hasParam("viewpoint_x") || private_nh.hasParam("viewpoint_y") || private_nh.hasParam("viewpoint_z");
    private_nh.param("orient", orient_, std::string("viewpoint"));
    if (orient_ != "viewpoint" && orient_ != "up" && orient_ != "mst" && orient_ != "none")
      throw std::runtime_error("~orient must be viewpoint, up, mst or none, not '" + orient_ + "'");
    std::string model_path;
    private_nh.param("model", model_path, std::string());
    model_path = pcl_dise::modelPathOrDefault(model_path, k_);
    if ((k_ > 0) == (radius_ > 0) || k_ < 0 || radius_ < 0 || iterations_ < 0 || threads_ < 0 || max_neighbors_ < 0)
      throw std::runtime_error(
          "set exactly one of ~k_search (> 0) and ~radius_search (> 0, with ~k_search 0); "
          "~iterations, ~threads and ~max_neighbors must not be negative");
    if (iterations_ > 0) model_ = std::make_shared<const pcl_dise::Model>(pcl_dise::loadModel(model_path));
    publisher_ = private_nh.advertise<sensor_msgs::PointCloud2>("output", 1);
    subscriber_ = private_nh.subscribe("input", 1, &DiseNormalsNode::onCloud, this);
    ROS_INFO("dise_normals_node: %s = %g, %d iterations, model %s, orient %s", k_ > 0 ? "k_search" : "radius_search",
             k_ > 0 ? double(k_) : radius_, iterations_, iterations_ > 0 ? model_path.c_str() : "(none: PCA)",
             orient_.c_str());
  }

 private:
  void onCloud(const sensor_msgs::PointCloud2::ConstPtr& message) {
    // Exceptions must not escape into roscpp's spinner: a bad cloud is logged and skipped.
    try {
      publisher_.publish(estimate(*message));
    } catch (const std::exception& e) {
      ROS_ERROR("dise_normals_node: cloud of %u x %u points in frame '%s' skipped: %s", message->width, message->height,
                message->header.frame_id.c_str(), e.what());
    }
  }

  sensor_msgs::PointCloud2 estimate(const sensor_msgs::PointCloud2& message) const {
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
      pcl::DeepIterativeNormalEstimation<pcl::PointXYZ, pcl::Normal> dise;
      dise.setInputCloud(cloud);
      if (k_ > 0)
        dise.setKSearch(k_);
      else {
        dise.setRadiusSearch(radius_);
        dise.setMaxNeighbors(max_neighbors_);
      }
      dise.setIterations(iterations_);
      dise.setNumberOfThreads(static_cast<unsigned>(threads_));
      dise.setViewPoint(float(viewpoint_[0]), float(viewpoint_[1]), float(viewpoint_[2]));
      dise.setNormalSign(pcl_dise::normalSignFor(orient_));
      if (model_) dise.setModel(model_);
      pcl::PointCloud<pcl::Normal> normals;
      dise.compute(normals);
      if (normals.size() != cloud->size())
        throw std::runtime_error("normal estimation failed (see PCL's message above)");
      if (orient_ == "mst") orientConsistently(cloud, normals);
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

  void orientConsistently(const pcl::PointCloud<pcl::PointXYZ>::ConstPtr& cloud,
                          pcl::PointCloud<pcl::Normal>& normals) const {
    pcl::ConsistentNormalOrientation<pcl::PointXYZ, pcl::Normal> orientation;
    orientation.setInputCloud(cloud);
    orientation.setNumberOfThreads(static_cast<unsigned>(threads_));
    if (viewpoint_set_) orientation.setViewPoint(float(viewpoint_[0]), float(viewpoint_[1]), float(viewpoint_[2]));
    if (!orientation.orient(normals)) throw std::runtime_error("orientation failed (see PCL's message above)");
  }

  int k_ = 64, max_neighbors_ = 0, iterations_ = 4, threads_ = 0;
  double radius_ = 0, viewpoint_[3] = {0, 0, 0};
  bool viewpoint_set_ = false;
  std::string orient_ = "viewpoint";
  std::shared_ptr<const pcl_dise::Model> model_;
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
