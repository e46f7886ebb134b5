// Explicit instantiations of pcl::ConsistentNormalOrientation for the usual point types; custom
// types define PCL_NO_PRECOMPILE and include the implementation.
#include "pcl_dise/feature/consistent_normal_orientation.h"

#ifndef PCL_NO_PRECOMPILE
#include <pcl/point_types.h>
#include <pcl/impl/instantiate.hpp>

#include "pcl_dise/feature/impl/consistent_normal_orientation.hpp"

// clang-format off
PCL_INSTANTIATE_PRODUCT(ConsistentNormalOrientation,
                        ((pcl::PointXYZ)(pcl::PointXYZI)(pcl::PointXYZRGB)(pcl::PointXYZRGBA)(pcl::PointXYZL)
                         (pcl::PointNormal)(pcl::PointXYZRGBNormal)(pcl::PointXYZINormal))
                        ((pcl::Normal)(pcl::PointNormal)(pcl::PointXYZRGBNormal)(pcl::PointXYZINormal)))
// clang-format on
#endif
