// Everything is in the header (static inline); SwiftPM needs a source file for a C target.
#include "CByteScan.h"

// The callback parameter names, by slot (`linkparse_callback_slot`). Generated from the names in
// `CallbackFields.Key` by Scripts/callback-name-table.py (which also searches the slot's multipliers);
// `CallbackNameLookupTests` checks that every name, and no near miss, is found.
const linkparse_callback_name linkparse_callback_names[64] = {
  [6] = {4, 0, "code"},
  [7] = {13, 6, "session_state"},
  [16] = {4, 8, "type"},
  [19] = {9, 16, "cancelled"},
  [23] = {5, 2, "error"},
  [26] = {12, 21, "access_token"},
  [27] = {9, 4, "error_uri"},
  [28] = {10, 15, "error_code"},
  [33] = {3, 5, "iss"},
  [35] = {17, 3, "error_description"},
  [37] = {9, 7, "device_id"},
  [38] = {16, 18, "auth_status_code"},
  [42] = {8, 19, "id_token"},
  [43] = {7, 12, "payload"},
  [45] = {11, 17, "unavailable"},
  [46] = {10, 22, "token_type"},
  [48] = {6, 10, "ext_id"},
  [52] = {10, 9, "expires_in"},
  [54] = {30, 11, "vkconnect_auth_provider_method"},
  [55] = {5, 23, "scope"},
  [58] = {4, 20, "user"},
  [59] = {5, 1, "state"},
  [60] = {6, 13, "status"},
  [62] = {6, 14, "result"},
};
