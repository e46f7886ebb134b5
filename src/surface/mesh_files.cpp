#include "surface/mesh_files.h"

#include <stdexcept>

#include <pcl/io/obj_io.h>
#include <pcl/io/ply_io.h>

#include "pcl_dise/io/file_format.h"

namespace pcl_dise {
namespace surface {

void checkMeshPath(const std::string& path) {
  const std::string ext = io::extension(path);
  if (ext != ".ply" && ext != ".obj")
    throw std::runtime_error("'" + path + "': unknown mesh extension '" + ext + "' (expected .ply or .obj)");
}

void writeMesh(const std::string& path, const pcl::PolygonMesh& mesh) {
  checkMeshPath(path);
  const int status =
      io::extension(path) == ".ply" ? pcl::io::savePLYFileBinary(path, mesh) : pcl::io::saveOBJFile(path, mesh);
  if (status != 0) throw std::runtime_error("'" + path + "' cannot be written");
}

}  // namespace surface
}  // namespace pcl_dise
