// Everything is in the header (static inline); SwiftPM needs a source file for a C target.
#include "CByteScan.h"

// The callback parameter names, by slot (`linkparse_callback_slot`). Generated from the names in
// `CallbackFields.Key`; `CallbackNameLookupTests` checks that every name, and no near miss, is found.
const linkparse_callback_name linkparse_callback_names[64] = {
  [4] = {17, 3, "error_description"},
  [8] = {3, 5, "iss"},
  [10] = {4, 8, "type"},
  [11] = {6, 13, "status"},
  [12] = {6, 14, "result"},
  [16] = {11, 17, "unavailable"},
  [22] = {9, 16, "cancelled"},
  [23] = {9, 7, "device_id"},
  [27] = {16, 18, "auth_status_code"},
  [28] = {5, 1, "state"},
  [29] = {8, 19, "id_token"},
  [31] = {6, 10, "ext_id"},
  [34] = {9, 4, "error_uri"},
  [37] = {4, 20, "user"},
  [40] = {5, 2, "error"},
  [45] = {10, 15, "error_code"},
  [52] = {13, 6, "session_state"},
  [56] = {30, 11, "vkconnect_auth_provider_method"},
  [57] = {4, 0, "code"},
  [61] = {7, 12, "payload"},
  [63] = {10, 9, "expires_in"},
};
