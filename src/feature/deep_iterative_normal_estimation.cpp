// Explicit instantiations of pcl::DeepIterativeNormalEstimation for the usual point types;
// custom types define PCL_NO_PRECOMPILE and include the implementation.
#include "pcl_dise/feature/deep_iterative_normal_estimation.h"

#ifndef PCL_NO_PRECOMPILE
#include <pcl/point_types.h>
#include <pcl/impl/instantiate.hpp>

#include "pcl_dise/feature/impl/deep_iterative_normal_estimation.hpp"

// clang-format off
PCL_INSTANTIATE_PRODUCT(DeepIterativeNormalEstimation,
                        ((pcl::PointXYZ)(pcl::PointXYZI)(pcl::PointXYZRGB)(pcl::PointXYZRGBA)(pcl::PointXYZL)
                         (pcl::PointNormal)(pcl::PointXYZRGBNormal)(pcl::PointXYZINormal))
                        ((pcl::Normal)(pcl::PointNormal)(pcl::PointXYZRGBNormal)(pcl::PointXYZINormal)))
// clang-format on
#endif
