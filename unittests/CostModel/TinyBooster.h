//===- TinyBooster.h - A minimal valid XGBoost model ------------*- C++ -*-===//
//
// Shared by the booster unit tests and the model folder fuzz targets.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_UNITTESTS_TINYBOOSTER_H
#define PERF_UNITTESTS_TINYBOOSTER_H

namespace perf::test {
/// One tree over the 32 features: feature 7 < 0.5 goes left (-1), else
/// right (+1). The smallest booster XGBoost 1.7 writes.
inline constexpr const char *kTinyBooster =
    R"({"learner":{"attributes":{},"feature_names":[],"feature_types":[],)"
    R"("gradient_booster":{"model":{"gbtree_model_param":{)"
    R"("num_parallel_tree":"1","num_trees":"1","size_leaf_vector":"0"},)"
    R"("tree_info":[0],"trees":[{"base_weights":[0.0,-1.0,1.0],)"
    R"("categories":[],"categories_nodes":[],"categories_segments":[],)"
    R"("categories_sizes":[],"default_left":[0,0,0],"id":0,)"
    R"("left_children":[1,-1,-1],"loss_changes":[1.0,0.0,0.0],)"
    R"("parents":[2147483647,0,0],"right_children":[2,-1,-1],)"
    R"("split_conditions":[0.5,-0.1,0.1],"split_indices":[7,0,0],)"
    R"("split_type":[0,0,0],"sum_hessian":[2.0,1.0,1.0],"tree_param":{)"
    R"("num_deleted":"0","num_feature":"32","num_nodes":"3",)"
    R"("size_leaf_vector":"0"}}]},"name":"gbtree"},"learner_model_param":{)"
    R"("base_score":"5E-1","boost_from_average":"1","num_class":"0",)"
    R"("num_feature":"32","num_target":"1"},"objective":{)"
    R"("name":"reg:squarederror","reg_loss_param":{"scale_pos_weight":"1"}}},)"
    R"("version":[1,7,4]})";
} // namespace perf::test

#endif // PERF_UNITTESTS_TINYBOOSTER_H
