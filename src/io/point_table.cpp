#include "pcl_dise/io/point_table.h"

#include "pcl_dise/io/file_format.h"

namespace pcl_dise {
namespace io {

PointTable readPointTable(const std::string& path) { return inputFormat(path).read(path, true); }

}  // namespace io
}  // namespace pcl_dise
