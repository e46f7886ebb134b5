// The settings' declarations: one name per setting on each surface, every value read back as it
// is shown, a text of the wrong kind refused with the setting's name, and the backends'
// capabilities as the one rule for settle and precision.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "pcl_dise/core/forward.h"
#include "pcl_dise/core/setting_declarations.h"

namespace {

using pcl_dise::NormalSettings;
using pcl_dise::SettingDeclaration;
using pcl_dise::SettingKind;

// A value of the declaration's kind other than the default, as text.
std::string anotherValue(const SettingDeclaration& d) {
  switch (d.kind) {
    case SettingKind::kInteger: return "7";
    case SettingKind::kNumber: return "0.125";
    case SettingKind::kPath: return "/models/a model.safetensors";
    case SettingKind::kPoint: return "1.5,-2,1e+300";
    case SettingKind::kName: {
      return d.choices.substr(d.choices.rfind(' ') + 1);  // the last one: never the default
    }
  }
  return "";
}

TEST(SettingDeclarations, EachNameFlagAndRosParameterIsOneSettings) {
  std::set<std::string> names, flags, ros_names;
  for (const SettingDeclaration& d : pcl_dise::settingDeclarations()) {
    EXPECT_TRUE(names.insert(d.name).second) << d.name;
    EXPECT_TRUE(flags.insert(pcl_dise::commandLineFlag(d)).second) << d.name;
    EXPECT_TRUE(ros_names.insert(d.ros_name).second) << d.name;
    EXPECT_NE(std::string(d.help), "") << d.name;
    EXPECT_EQ(d.kind == SettingKind::kName, !d.choices.empty()) << d.name;
    EXPECT_EQ(&pcl_dise::settingDeclaration(d.name), &d);
  }
  EXPECT_EQ(pcl_dise::commandLineFlag(pcl_dise::settingDeclaration("max_neighbors")), "--max-neighbors");
  try {
    pcl_dise::settingDeclaration("neighbours");
    ADD_FAILURE() << "an unknown name was found";
  } catch (const pcl_dise::OptionsError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown setting 'neighbours' (the settings: k, radius"), std::string::npos);
  }
}

TEST(SettingDeclarations, EveryValueReadsBackAsItIsShown) {
  for (const SettingDeclaration& d : pcl_dise::settingDeclarations()) {
    SCOPED_TRACE(d.name);
    NormalSettings s;
    const std::string by_default = pcl_dise::defaultText(d);
    EXPECT_EQ(by_default.empty(), d.unset_by_default);
    d.read(s, anotherValue(d));
    const std::string shown = d.show(s);
    EXPECT_NE(shown, by_default);
    NormalSettings again;
    d.read(again, shown);
    EXPECT_EQ(d.show(again), shown);
    if (d.unset_by_default) {
      d.read(again, "");
      EXPECT_EQ(d.show(again), "");
    }
  }
  NormalSettings s;
  pcl_dise::settingDeclaration("viewpoint").read(s, "1.5,-2,0.1");
  ASSERT_TRUE(s.viewpoint.has_value());
  EXPECT_EQ((*s.viewpoint)[2], 0.1);
  pcl_dise::settingDeclaration("settle").read(s, "0.1");
  EXPECT_EQ(s.settle_degrees, 0.1);
}

TEST(SettingDeclarations, ATextOfTheWrongKindIsRefusedNamingTheSetting) {
  const auto refusal = [](const std::string& name, const std::string& text) {
    NormalSettings s;
    try {
      pcl_dise::settingDeclaration(name).read(s, text);
    } catch (const pcl_dise::OptionsError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(refusal("iterations", "4.5"), "iterations must be a whole number, not '4.5'");
  EXPECT_EQ(refusal("iterations", "99999999999"), "iterations must be a whole number, not '99999999999'");
  EXPECT_EQ(refusal("threads", "-1"), "threads must be a whole number, 0 or more, not '-1'");
  EXPECT_EQ(refusal("k", "-3"), "k must be a whole number, 0 or more, not '-3'");
  EXPECT_EQ(refusal("radius", "0.1m"), "radius must be a number, not '0.1m'");
  EXPECT_EQ(refusal("viewpoint", "1,2"), "viewpoint must be 3 numbers X,Y,Z, not '1,2'");
  EXPECT_EQ(refusal("viewpoint", "1,2,3,4"), "viewpoint must be 3 numbers X,Y,Z, not '1,2,3,4'");
  EXPECT_NE(refusal("orient", "outward").find("orient must be one of"), std::string::npos);
  EXPECT_NE(refusal("backend", "gpu").find("unknown backend 'gpu'"), std::string::npos);
  EXPECT_EQ(refusal("iterations", "300"), "");  // its range is validate's
}

TEST(SettingDeclarations, TheBackendsCapabilitiesAreTheOneRuleForSettleAndPrecision) {
  using pcl_dise::Backend;
  using pcl_dise::Precision;
  for (Backend b : {Backend::Native, Backend::Torch, Backend::Cuda}) {
    const pcl_dise::BackendCapabilities can = pcl_dise::kBackendCapabilities[static_cast<int>(b)];
    NormalSettings s;
    s.backend = b;
    s.settle_degrees = 1;
    if (can.adaptive_mode)
      EXPECT_NO_THROW(s.validate(false));
    else
      EXPECT_THROW(s.validate(false), pcl_dise::OptionsError);
    s.settle_degrees = 0;
    s.precision = Precision::Bf16;
    if (can.bf16)
      EXPECT_NO_THROW(s.validate(false));
    else
      EXPECT_THROW(s.validate(false), pcl_dise::OptionsError);
  }
}

}  // namespace
