/// @file
/// @brief Library version and the versioned inline namespace.
#pragma once

#define TALLY_VERSION_MAJOR 0
#define TALLY_VERSION_MINOR 1
#define TALLY_VERSION_PATCH 0

/// Every public entity lives in `tally::v0` through this inline namespace, so two
/// incompatible versions linked into one program get distinct mangled names.
#define TALLY_BEGIN_NAMESPACE \
  namespace tally {           \
  inline namespace v0 {
#define TALLY_END_NAMESPACE \
  }                         \
  }
