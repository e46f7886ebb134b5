// dise_normals_node against a real ROS master on a free port of 127.0.0.1: its normals equal the
// library's, an empty cloud gets an empty cloud with the same header, NaN points get NaN normals
// and is_dense = false, a cloud without x/y/z is logged and skipped, and the node keeps running; a
// second node with ~orient mst turns a sphere's normals outward; ~error_bound adds each normal's
// bound (a node asked for it with an uncalibrated model stops at start, among the bad parameters).
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <pcl_conversions/pcl_conversions.h>
#include <ros/ros.h>
#include <sensor_msgs/PointCloud2.h>

#include "pcl_dise/core/error_bound.h"
#include "pcl_dise/core/model.h"
#include "pcl_dise/feature/deep_iterative_normal_estimation.h"
#include "test_support.h"

extern char** environ;

namespace {

using namespace pcl_dise::test;
using Clock = std::chrono::steady_clock;

int freePort() {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(s, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t length = sizeof(address);
  getsockname(s, reinterpret_cast<sockaddr*>(&address), &length);
  close(s);
  return ntohs(address.sin_port);
}

pid_t spawn(const std::vector<std::string>& args, const std::string& log) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  if (posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

bool running(pid_t pid) { return waitpid(pid, nullptr, WNOHANG) == 0; }

class DiseNormalsNode : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(temporaryDir("ros_node"));
    // The first node's model carries an error calibration: it also publishes the bounds.
    pcl_dise::Model model = pcl_dise::loadModel(randomModelFile(7));
    pcl_dise::setErrorCalibration(model, calibration());
    model_ = new std::string(*dir_ + "/calibrated.safetensors");
    pcl_dise::saveModel(model, *model_);
    const std::string port = std::to_string(freePort());
    setenv("ROS_MASTER_URI", ("http://127.0.0.1:" + port).c_str(), 1);
    setenv("ROS_IP", "127.0.0.1", 1);
    setenv("ROS_HOME", dir_->c_str(), 1);
    master_ = spawn({"rosmaster", "--core", "-p", port}, *dir_ + "/master.log");
    int argc = 0;
    ros::init(argc, nullptr, "dise_normals_node_test", ros::init_options::NoSigintHandler);
    for (auto end = Clock::now() + std::chrono::seconds(30); !ros::master::check() && Clock::now() < end;)
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    ASSERT_TRUE(ros::master::check()) << readFile(*dir_ + "/master.log");
    node_ = spawn({binaryDir() + "/apps/dise_normals_node", "__name:=dise", "_k_search:=12", "_iterations:=2",
                   "_model:=" + *model_, "_error_bound:=true"},
                  *dir_ + "/node.log");
    // The second node also runs the adaptive mode in bfloat16 (where the processor has it), on
    // radius neighbourhoods set by radius_search alone (k_search left unset).
    mst_node_ = spawn({binaryDir() + "/apps/dise_normals_node", "__name:=dise_mst", "_radius_search:=0.25",
                       "_iterations:=2", "_model:=" + *model_, "_orient:=mst", "_settle:=1", "_precision:=bf16"},
                      *dir_ + "/mst_node.log");
    nh_ = new ros::NodeHandle;
    output_ = new ros::Subscriber(nh_->subscribe("/dise/output", 10, &DiseNormalsNode::onReply));
    input_ = new ros::Publisher(nh_->advertise<sensor_msgs::PointCloud2>("/dise/input", 10));
    mst_output_ = new ros::Subscriber(nh_->subscribe("/dise_mst/output", 10, &DiseNormalsNode::onReply));
    mst_input_ = new ros::Publisher(nh_->advertise<sensor_msgs::PointCloud2>("/dise_mst/input", 10));
    for (auto end = Clock::now() + std::chrono::seconds(30);
         (input_->getNumSubscribers() == 0 || output_->getNumPublishers() == 0 ||
          mst_input_->getNumSubscribers() == 0 || mst_output_->getNumPublishers() == 0) &&
         Clock::now() < end;)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ASSERT_GT(input_->getNumSubscribers(), 0u) << readFile(*dir_ + "/node.log");
    ASSERT_GT(mst_input_->getNumSubscribers(), 0u) << readFile(*dir_ + "/mst_node.log");
  }

  static void TearDownTestSuite() {
    delete input_;
    delete output_;
    delete mst_input_;
    delete mst_output_;
    delete nh_;
    ros::shutdown();
    for (pid_t pid : {node_, mst_node_, master_})
      if (pid > 0) {
        kill(pid, SIGTERM);
        waitpid(pid, nullptr, 0);
      }
  }

  static void onReply(const sensor_msgs::PointCloud2::ConstPtr& reply) { reply_ = reply; }

  static pcl_dise::ErrorCalibration calibration() {
    pcl_dise::ErrorCalibration c;
    c.curvature = {1e-4, 1e-2, 0.1};
    c.degrees = {1, 5, 20};
    return c;
  }

  // Publishes `cloud` and waits for the node's answer (nullptr after 20 s).
  static sensor_msgs::PointCloud2::ConstPtr ask(const sensor_msgs::PointCloud2& cloud, double seconds = 20,
                                                ros::Publisher* input = input_) {
    reply_.reset();
    input->publish(cloud);
    for (auto end = Clock::now() + std::chrono::duration<double>(seconds); !reply_ && Clock::now() < end;) {
      ros::spinOnce();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return reply_;
  }

  static sensor_msgs::PointCloud2 message(const pcl::PointCloud<pcl::PointXYZ>& cloud, std::uint32_t seq) {
    sensor_msgs::PointCloud2 m;
    pcl::toROSMsg(cloud, m);
    m.header.frame_id = "sensor";
    m.header.seq = seq;
    m.header.stamp = ros::Time(1000 + seq, 5);
    return m;
  }

  static std::string *dir_, *model_;
  static pid_t master_, node_, mst_node_;
  static ros::NodeHandle* nh_;
  static ros::Subscriber *output_, *mst_output_;
  static ros::Publisher *input_, *mst_input_;
  static sensor_msgs::PointCloud2::ConstPtr reply_;
};
std::string *DiseNormalsNode::dir_ = nullptr, *DiseNormalsNode::model_ = nullptr;
pid_t DiseNormalsNode::master_ = -1, DiseNormalsNode::node_ = -1, DiseNormalsNode::mst_node_ = -1;
ros::NodeHandle* DiseNormalsNode::nh_ = nullptr;
ros::Subscriber *DiseNormalsNode::output_ = nullptr, *DiseNormalsNode::mst_output_ = nullptr;
ros::Publisher *DiseNormalsNode::input_ = nullptr, *DiseNormalsNode::mst_input_ = nullptr;
sensor_msgs::PointCloud2::ConstPtr DiseNormalsNode::reply_;

TEST_F(DiseNormalsNode, NormalsMatchTheLibrary) {
  const auto cloud = boxCloud(600);
  const auto reply = ask(message(*cloud, 1));
  ASSERT_TRUE(reply) << readFile(*dir_ + "/node.log");
  EXPECT_EQ(reply->header.frame_id, "sensor");
  EXPECT_EQ(reply->header.stamp, ros::Time(1001, 5));
  pcl::PointCloud<pcl::PointNormal> got;
  pcl::fromROSMsg(*reply, got);
  ASSERT_EQ(got.size(), cloud->size());

  pcl::DeepIterativeNormalEstimation<pcl::PointXYZ, pcl::Normal> dise;
  dise.setInputCloud(cloud);
  dise.setKSearch(12);
  dise.setIterations(2);
  dise.setModelPath(*model_);
  pcl::PointCloud<pcl::Normal> expected;
  dise.compute(expected);
  ASSERT_EQ(expected.size(), cloud->size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].x, (*cloud)[i].x);
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(got[i].normal[d], expected[i].normal[d], 1e-5) << i;
    EXPECT_NEAR(got[i].curvature, expected[i].curvature, 1e-5);
  }
}

// ~error_bound: a float field error_bound after the others, each normal's bound by the model's
// calibration (the library's rule), NaN where a point has no normal.
TEST_F(DiseNormalsNode, ErrorBoundIsAFieldWithEachNormalsBound) {
  auto cloud = *boxCloud(600);
  cloud[9].y = std::numeric_limits<float>::quiet_NaN();
  cloud.is_dense = false;
  const auto reply = ask(message(cloud, 7));
  ASSERT_TRUE(reply) << readFile(*dir_ + "/node.log");
  const sensor_msgs::PointField& field = reply->fields.back();
  ASSERT_EQ(field.name, "error_bound");
  EXPECT_EQ(field.datatype, sensor_msgs::PointField::FLOAT32);
  pcl::PointCloud<pcl::PointNormal> got;
  pcl::fromROSMsg(*reply, got);
  ASSERT_EQ(got.size(), cloud.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    float bound;
    std::memcpy(&bound, reply->data.data() + i * reply->point_step + field.offset, 4);
    const float expected = pcl_dise::normalErrorBound(calibration(), got[i].normal, got[i].curvature);
    if (i == 9) {
      EXPECT_TRUE(std::isnan(bound));
      continue;
    }
    EXPECT_EQ(bound, expected) << i;
    EXPECT_TRUE(bound >= 1 && bound <= 20) << i;
  }
}

TEST_F(DiseNormalsNode, OrientMstTurnsASphereOutward) {
  // Seen from the frame's origin, the sphere's centre, viewpoint orientation would face inward.
  const auto cloud = sphereCloud(1500);
  const auto reply = ask(message(*cloud, 5), 20, mst_input_);
  ASSERT_TRUE(reply) << readFile(*dir_ + "/mst_node.log");
  pcl::PointCloud<pcl::PointNormal> got;
  pcl::fromROSMsg(*reply, got);
  ASSERT_EQ(got.size(), cloud->size());
  for (const auto& p : got) EXPECT_GT(p.getNormalVector3fMap().dot(p.getVector3fMap()), 0.f);
}

TEST_F(DiseNormalsNode, EmptyCloudGetsEmptyCloudWithTheSameHeader) {
  const auto reply = ask(message(pcl::PointCloud<pcl::PointXYZ>(), 2));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->width * reply->height, 0u);
  EXPECT_EQ(reply->header.stamp, ros::Time(1002, 5));
  EXPECT_EQ(reply->header.frame_id, "sensor");
}

TEST_F(DiseNormalsNode, NanPointsGetNanNormals) {
  auto cloud = *boxCloud(400);
  cloud[5].x = std::numeric_limits<float>::quiet_NaN();
  cloud[77].z = std::numeric_limits<float>::infinity();
  cloud.is_dense = false;
  const auto reply = ask(message(cloud, 3));
  ASSERT_TRUE(reply);
  EXPECT_FALSE(reply->is_dense);
  pcl::PointCloud<pcl::PointNormal> got;
  pcl::fromROSMsg(*reply, got);
  ASSERT_EQ(got.size(), cloud.size());
  EXPECT_TRUE(std::isnan(got[5].normal_x));
  EXPECT_TRUE(std::isnan(got[77].normal_z));
  EXPECT_TRUE(std::isfinite(got[6].normal_x));
}

// PCL's NaN contract on radius neighbourhoods (the second node's radius_search 0.25): a point with
// fewer than 3 points within the radius gets NaN, and its neighbours keep their normals; the
// same normals as the library's radius estimation.
TEST_F(DiseNormalsNode, RadiusSearchGivesNanWherePclWould) {
  auto cloud = *sphereCloud(1500);
  cloud.push_back(pcl::PointXYZ(3.f, 0.f, 0.f));   // alone
  cloud.push_back(pcl::PointXYZ(3.f, 0.1f, 0.f));  // a pair: 2 points within the radius each
  const auto reply = ask(message(cloud, 6), 20, mst_input_);
  ASSERT_TRUE(reply) << readFile(*dir_ + "/mst_node.log");
  pcl::PointCloud<pcl::PointNormal> got;
  pcl::fromROSMsg(*reply, got);
  ASSERT_EQ(got.size(), cloud.size());
  EXPECT_TRUE(std::isnan(got[1500].normal_x));
  EXPECT_TRUE(std::isnan(got[1501].normal_x));
  for (std::size_t i = 0; i < 1500; ++i) ASSERT_TRUE(std::isfinite(got[i].normal_x)) << i;
  EXPECT_FALSE(reply->is_dense);
}

TEST_F(DiseNormalsNode, CloudWithoutXyzIsLoggedAndTheNodeKeepsRunning) {
  sensor_msgs::PointCloud2 bad;
  bad.header.frame_id = "sensor";
  bad.height = 1;
  bad.width = 2;
  sensor_msgs::PointField intensity;
  intensity.name = "intensity";
  intensity.datatype = sensor_msgs::PointField::FLOAT32;
  intensity.count = 1;
  bad.fields = {intensity};
  bad.point_step = 4;
  bad.row_step = 8;
  bad.data.assign(8, 0);
  EXPECT_FALSE(ask(bad, 2));
  EXPECT_TRUE(running(node_));
  EXPECT_NE(readFile(*dir_ + "/node.log").find("no 'x' field"), std::string::npos) << readFile(*dir_ + "/node.log");
  // Still answers.
  EXPECT_TRUE(ask(message(*boxCloud(100), 4)));
}

// The malformed kinds that once killed the node or got an answer: each is skipped with one
// ROS_ERROR naming the problem, and the node keeps serving.
TEST_F(DiseNormalsNode, MalformedCloudsAreSkippedWithTheirReasonAndTheNodeKeepsServing) {
  const sensor_msgs::PointCloud2 good = message(*boxCloud(1000), 6);
  struct Kind {
    const char* reason;
    sensor_msgs::PointCloud2 cloud;
  };
  std::vector<Kind> kinds;
  auto kind = [&](const char* reason, auto change) {
    sensor_msgs::PointCloud2 cloud = good;
    change(cloud);
    kinds.push_back({reason, cloud});
  };
  kind("data holds", [](sensor_msgs::PointCloud2& c) {  // point_step of 1 MiB, little data
    c.point_step = 1u << 20;
    c.row_step = c.point_step * c.width;
  });
  kind("data holds 100 bytes", [](sensor_msgs::PointCloud2& c) { c.data.resize(100); });
  kind("reaches past point_step", [](sensor_msgs::PointCloud2& c) {
    c.point_step = 4;
    c.row_step = 4 * c.width;
    c.data.resize(c.row_step);
  });
  kind("is less than point_step", [](sensor_msgs::PointCloud2& c) {
    c.row_step = 8;
    c.data.resize(8);
  });
  kind("is of type 5", [](sensor_msgs::PointCloud2& c) { c.fields[0].datatype = sensor_msgs::PointField::INT32; });
  kind("big-endian", [](sensor_msgs::PointCloud2& c) { c.is_bigendian = true; });
  kind("no 'z' field", [](sensor_msgs::PointCloud2& c) { c.fields[2].name = "w"; });
  for (const Kind& k : kinds) {
    EXPECT_FALSE(ask(k.cloud, 1)) << k.reason;
    EXPECT_TRUE(running(node_)) << k.reason;
    // ask() gives up after a second; the node logs the reason once it gets to the message.
    std::string log;
    for (auto end = Clock::now() + std::chrono::seconds(10);
         (log = readFile(*dir_ + "/node.log")).find(k.reason) == std::string::npos && Clock::now() < end;)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_NE(log.find(k.reason), std::string::npos) << k.reason << "\n" << log;
  }
  const auto reply = ask(good);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->width * reply->height, 1000u);
}

}  // namespace

// The parameters are the declared settings: a value of the wrong kind or out of range stops the
// node at start with the library's message, the same as dise_normals and Python give; so does
// ~error_bound with a model that carries no calibration.
TEST_F(DiseNormalsNode, BadParametersStopTheNodeWithTheLibrarysMessage) {
  const std::string calibrated = "_model:=" + *model_, uncalibrated = "_model:=" + randomModelFile(7);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"_iterations:=2.5", calibrated}, "iterations must be a whole number, not '2.5'"},
      {{"_orient_neighbors:=0", calibrated}, "orient_neighbors must be at least 1"},
      {{"_backend:=fpga", calibrated}, "unknown backend 'fpga'"},
      {{"_viewpoint_x:=nan", calibrated}, "viewpoint must be 3 finite numbers"},
      {{"_error_bound:=maybe", calibrated}, "parameter ~error_bound must be true or false"},
      {{"_error_bound:=true", uncalibrated},
       "~error_bound: the model '" + randomModelFile(7) + "' carries no error calibration"}};
  int n = 0;
  for (const auto& [parameters, message] : cases) {
    const std::string parameter = parameters.front();
    const std::string log = *dir_ + "/bad_" + std::to_string(n) + ".log";
    std::vector<std::string> command = {binaryDir() + "/apps/dise_normals_node", "__name:=bad" + std::to_string(n++)};
    command.insert(command.end(), parameters.begin(), parameters.end());
    const pid_t pid = spawn(command, log);
    ASSERT_GT(pid, 0);
    int status = 0;
    for (auto end = Clock::now() + std::chrono::seconds(20); waitpid(pid, &status, WNOHANG) == 0;) {
      if (Clock::now() > end) {
        kill(pid, SIGTERM);
        waitpid(pid, &status, 0);
        ADD_FAILURE() << parameter << ": the node kept running\n" << readFile(log);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << parameter;
    EXPECT_NE(readFile(log).find(message), std::string::npos) << parameter << "\n" << readFile(log);
  }
}
