/// @file
/// @brief Library version and the versioned inline namespace.
#pragma once

#define TALLY_VERSION_MAJOR 0  ///< tally's major version
#define TALLY_VERSION_MINOR 1  ///< tally's minor version
#define TALLY_VERSION_PATCH 0  ///< tally's patch version

/// Every public entity lives in `tally::v0` through this inline namespace, so two
/// incompatible versions linked into one program get distinct mangled names.
#define TALLY_BEGIN_NAMESPACE \
  namespace tally {           \
  inline namespace v0 {
/// Closes the namespaces that TALLY_BEGIN_NAMESPACE opened.
#define TALLY_END_NAMESPACE \
  }                         \
  }
