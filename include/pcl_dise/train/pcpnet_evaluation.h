#pragma once
// The PCPNet protocol (pcpnet_protocol.h) run for several normal estimators side by side over a
// folder of category lists, as dise_eval reports it: a table row per category as it is done, the
// averages, the thin structures' row, a paired comparison of two methods, a JSON report and the
// panels of the good-points plot.
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "pcl_dise/train/good_points_plot.h"
#include "pcl_dise/train/pcpnet_data.h"
#include "pcl_dise/train/pcpnet_protocol.h"

namespace pcl_dise {
namespace train {

/** One estimator under evaluation. */
struct EvaluatedMethod {
  std::string name;  ///< its column, JSON key and curve
  Color color;       ///< its curve's colour
  /** The angle errors (degrees, angleErrorsAt) at the cloud's .pidx points of each stage of the
   *  method: one stage, or iterations 0..L with the last the result. May throw. */
  std::function<std::vector<std::vector<double>>(const LoadedCloud&)> estimate;
  ProtocolScores scores;  ///< filled by evaluatePcpnet
};

/** What is evaluated: the lists DIR/PREFIX_\<category\>.txt, and what the report says of the run. */
struct PcpnetEvaluationSetup {
  std::string dir;                 ///< the folder that holds the category lists and their clouds
  std::string prefix = "testset";  ///< the lists' prefix: PREFIX_no_noise.txt, ... (pcpnetCategories)
  std::string model;               ///< the first method's model (the report's "model")
  std::string compare_model;       ///< a second model's file, or empty
  int k = 64;                      ///< the neighbourhood size the report records
  int iterations = 4;              ///< the first method's stages are iterations 0..iterations
  /// The method compared with the first shape by shape (its index in methods), 0: none.
  std::size_t compared = 0;
};

/** What evaluatePcpnet gives beside the methods' scores. */
struct PcpnetEvaluation {
  std::string report;                   ///< the JSON report (dise_eval --report)
  std::vector<GoodPointsPanel> panels;  ///< one per category, for plotGoodPoints
};

/** \brief Runs every method on every cloud of every category list there is, in protocol order.
 *  \param[in] setup the folder, the lists' prefix and what the report records
 *  \param[in,out] methods the estimators (at least one); their scores are filled
 *  \param[out] table the table: a header, a row per category as it is done (the first method's
 *    RMSE per iteration at its end), the average and, where there are thin structures, their row,
 *    then the paired comparison where setup.compared is set
 *  \return the JSON report and the plot's panels
 *  \throws std::runtime_error where no list is found, or naming the method and cloud where an
 *    estimate throws; a cloud that cannot be read is skipped with a warning on stderr */
PcpnetEvaluation evaluatePcpnet(const PcpnetEvaluationSetup& setup, std::vector<EvaluatedMethod>& methods,
                                std::ostream& table);

}  // namespace train
}  // namespace pcl_dise
