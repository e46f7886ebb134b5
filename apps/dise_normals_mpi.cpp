// dise_normals_mpi: dise_normals tile by tile over MPI ranks. Every rank reads the input (a file
// they all see), runs the tiles t with t % ranks == rank and writes their results into a scratch
// file beside the output; rank 0 writes the output, in input order. The normals are those of
// dise_normals on one process, bit for bit.
#include <csignal>
#include <iostream>

#include <mpi.h>

#include <CLI/CLI.hpp>

#include "normals_command.h"
#include "pcl_dise/core/tiled_forward.h"

namespace {

class MpiProcesses : public pcl_dise::jobs::Collective {
 public:
  MpiProcesses() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void sum(pcl_dise::ExactSum& terms) override {
    pcl_dise::ExactSum::State state = terms.state();
    MPI_Allreduce(MPI_IN_PLACE, state.data(), static_cast<int>(state.size()), MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    terms = pcl_dise::ExactSum::fromState(state);
  }
  std::string broadcast(const std::string& text) override {
    unsigned long length = text.size();
    MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
    std::string out = rank_ == 0 ? text : std::string(length, '\0');
    MPI_Bcast(out.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD);
    return out;
  }
  void barrier() override { MPI_Barrier(MPI_COMM_WORLD); }

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  CLI::App app{
      "dise_normals over MPI ranks: the options of dise_normals; the cloud always goes tile by tile\n"
      "(tiles of --tile-points, or sized by --max-memory per rank; default " +
      std::to_string(pcl_dise::TiledForwardOptions{}.tile_points) +
      " points), the\n"
      "input and the scratch folder (--scratch, default the output's) must be seen by every rank."};
  pcl_dise::tools::Options o;
  pcl_dise::tools::addNormalsOptions(app, o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    MPI_Finalize();
    return code;
  }
  std::signal(SIGXFSZ, SIG_IGN);
  MpiProcesses processes;
  try {
    o.check();
    const int code = pcl_dise::tools::runTiled(o, processes, "dise_normals_mpi");
    MPI_Finalize();
    return code;
  } catch (const std::exception& e) {
    std::cerr << "dise_normals_mpi: error (rank " << processes.rank() << "): " << e.what() << "\n";
    // The other ranks may wait in a collective call: end them all.
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }
}
