// dise_normals_node: DISE normals for sensor_msgs/PointCloud2 (ROS 1).
// Subscribes ~input, publishes ~output (x y z normal_x normal_y normal_z curvature, same header
// and layout; with ~error_bound true, also error_bound: each normal's bound in degrees). Its parameters are the
// declared settings (core/setting_declarations.h) under their ROS names: pcl_ros's NormalEstimation names where it has
// them (k_search, radius_search), the library's otherwise (iterations, model, backend, orient, orient_neighbors, ...);
// a viewpoint is viewpoint_x/y/z in the cloud's frame (PointCloud2 carries no sensor origin, so the frame's origin,
// where the sensor usually sits, is the default). They are read into the library's NormalSettings, validated and run by
// its NormalPipeline.
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <pcl/point_types.h>
#include <pcl_conversions/pcl_conversions.h>
#include <ros/ros.h>
#include <sensor_msgs/PointCloud2.h>

#include "pcl_dise/core/error_bound.h"
#include "pcl_dise/core/setting_declarations.h"
#include "pcl_dise/feature/normal_pipeline.h"
#include "pcl_dise/io/point_cloud2_xyz.h"

namespace {

class DiseNormalsNode {
 public:
  explicit DiseNormalsNode(ros::NodeHandle& private_nh)
      : pipeline_(settingsFrom(private_nh)), error_bound_(flag(private_nh, "error_bound")) {
    const pcl_dise::NormalSettings& s = pipeline_.settings();
    if (error_bound_) {  // refused at start: a model without a calibration, or PCA
      const std::string unavailable = pcl_dise::errorBoundUnavailable(
          s.iterations, s.iterations > 0 ? pipeline_.estimator().getModel().get() : nullptr, pipeline_.modelPath());
      if (!unavailable.empty()) throw pcl_dise::OptionsError("~error_bound: " + unavailable);
    }
    publisher_ = private_nh.advertise<sensor_msgs::PointCloud2>("output", 1);
    subscriber_ = private_nh.subscribe("input", 1, &DiseNormalsNode::onCloud, this);
    ROS_INFO("dise_normals_node: %s = %g, %d iterations, model %s, orient %s%s",
             s.radius > 0 ? "radius_search" : "k_search", s.radius > 0 ? s.radius : double(s.neighbors()), s.iterations,
             s.iterations > 0 ? pipeline_.modelPath().c_str() : "(none: PCA)", pcl_dise::orientationName(s.orientation),
             error_bound_ ? ", error bound" : "");
  }

 private:
  // The node's parameters as the library's settings (validated by the pipeline).
  static pcl_dise::NormalSettings settingsFrom(ros::NodeHandle& private_nh) {
    pcl_dise::NormalSettings s;
    for (const pcl_dise::SettingDeclaration& d : pcl_dise::settingDeclarations()) {
      if (!(d.surfaces & pcl_dise::kRosSurface)) continue;
      const std::string name = d.ros_name;
      if (d.kind != pcl_dise::SettingKind::kPoint) {
        if (private_nh.hasParam(name)) d.read(s, parameterText(private_nh, name));
      } else if (private_nh.hasParam(name + "_x") || private_nh.hasParam(name + "_y") ||
                 private_nh.hasParam(name + "_z")) {
        const auto axis = [&](const char* a) {
          return private_nh.hasParam(name + a) ? parameterText(private_nh, name + a) : std::string("0");
        };
        d.read(s, axis("_x") + "," + axis("_y") + "," + axis("_z"));
      }
    }
    return s;
  }

  // A true/false parameter (false where unset).
  static bool flag(ros::NodeHandle& private_nh, const std::string& name) {
    bool value = false;
    if (private_nh.hasParam(name) && !private_nh.getParam(name, value))
      throw pcl_dise::OptionsError("parameter ~" + name + " must be true or false");
    return value;
  }

  // A parameter as the text a command line would give (the declaration reads and checks it).
  static std::string parameterText(ros::NodeHandle& private_nh, const std::string& name) {
    XmlRpc::XmlRpcValue value;
    private_nh.getParam(name, value);
    std::ostringstream text;
    text.precision(17);
    switch (value.getType()) {
      case XmlRpc::XmlRpcValue::TypeInt: text << static_cast<int>(value); break;
      case XmlRpc::XmlRpcValue::TypeDouble: text << static_cast<double>(value); break;
      case XmlRpc::XmlRpcValue::TypeString: text << static_cast<std::string>(value); break;
      default: throw pcl_dise::OptionsError("parameter ~" + name + " must be a number or a string");
    }
    return text.str();
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
    std::vector<float> bounds(cloud->size(), std::numeric_limits<float>::quiet_NaN());
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
      if (error_bound_) pipeline_.estimator().computeErrorBounds(normals, bounds);
    }
    sensor_msgs::PointCloud2 reply;
    pcl::toROSMsg(out, reply);
    reply.header = message.header;
    if (error_bound_) appendFloatField(reply, "error_bound", bounds);
    return reply;
  }

  // Adds a FLOAT32 field `name` after each point's fields, holding values[i] at point i.
  static void appendFloatField(sensor_msgs::PointCloud2& message, const std::string& name,
                               const std::vector<float>& values) {
    sensor_msgs::PointField field;
    field.name = name;
    field.offset = message.point_step;
    field.datatype = sensor_msgs::PointField::FLOAT32;
    field.count = 1;
    const std::uint32_t step = message.point_step, points = message.width * message.height;
    std::vector<std::uint8_t> data(std::size_t(points) * (step + 4));
    for (std::size_t i = 0; i < points; ++i) {
      std::memcpy(data.data() + i * (step + 4), message.data.data() + i * step, step);
      std::memcpy(data.data() + i * (step + 4) + step, &values[i], 4);
    }
    message.fields.push_back(field);
    message.point_step = step + 4;
    message.row_step = message.point_step * message.width;
    message.data = std::move(data);
  }

  pcl_dise::NormalPipeline pipeline_;
  bool error_bound_;
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
