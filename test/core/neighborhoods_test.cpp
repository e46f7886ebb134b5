// Neighbourhood index arrays (neighborhoods.h): the compressed-row layout and its constructors.
#include <gtest/gtest.h>

#include "pcl_dise/core/neighborhoods.h"

namespace {

using pcl_dise::Neighborhoods;

TEST(Neighborhoods, FromRowsKeepsEveryRowInOrder) {
  const Neighborhoods n = Neighborhoods::fromRows({{0, 2, 1}, {}, {2, 0}});
  ASSERT_EQ(n.numNodes(), 3u);
  EXPECT_EQ(n.numEdges(), 5u);
  EXPECT_EQ(n.offsets, (std::vector<std::int64_t>{0, 3, 3, 5}));
  EXPECT_EQ(n.size(1), 0);
  EXPECT_EQ(n.begin(2)[0], 2);
  EXPECT_EQ(n.begin(2)[1], 0);
}

TEST(Neighborhoods, FromDenseAndAppendAgreeWithFromRows) {
  const std::int32_t table[] = {0, 1, 1, 0, 2, 1};
  const Neighborhoods dense = Neighborhoods::fromDense(table, 3, 2);
  Neighborhoods appended;
  for (int i = 0; i < 3; ++i) appended.append(table + 2 * i, 2);
  const Neighborhoods rows = Neighborhoods::fromRows({{0, 1}, {1, 0}, {2, 1}});
  EXPECT_EQ(dense.offsets, rows.offsets);
  EXPECT_EQ(dense.indices, rows.indices);
  EXPECT_EQ(appended.offsets, rows.offsets);
  EXPECT_EQ(appended.indices, rows.indices);
}

TEST(Neighborhoods, TruncatedKeepsTheFirstNodesAndEntries) {
  const Neighborhoods n = Neighborhoods::fromRows({{0, 1, 2, 3}, {1, 0}, {2, 3, 1}});
  const Neighborhoods t = n.truncated(2, 3);
  EXPECT_EQ(t.numNodes(), 2u);
  EXPECT_EQ(t.indices, (std::vector<std::int32_t>{0, 1, 2, 1, 0}));
  EXPECT_EQ(t.offsets, (std::vector<std::int64_t>{0, 3, 5}));
}

}  // namespace
