// omgdb engine — order-preserving binary keys for values.
//
// memcmp order of encode_key(a) and encode_key(b) equals compare(a, b) (value.hpp) for all
// values, and encode_key(a) == encode_key(b) exactly when compare(a, b) == 0 (so 1, 1.0 and
// NumberLong(1) share one key, and a document `_id` keyed by it is unique by value, as in
// MongoDB). The encoding is prefix-free, so keys can be concatenated for compound keys, and
// `descending` inverts every byte of one component. MongoDB's KeyString is the model:
// a type byte per bracket (MinKey, null, numbers, string, object, array, binary, ObjectId,
// bool, date, timestamp, regex, MaxKey), numbers of every type in one order, strings escaped
// (0x00 → 0x00 0xFF) and terminated with 0x00 0x00 (two bytes, so that no key is a prefix
// of another; the byte layout is described in keystring.cpp). decimal128 values are keyed
// exactly: NumberDecimal("1.00") shares 1's key, NumberDecimal("0.1") sorts just above the
// double 0.1's 34-digit value, two decimals share a key only when they are equal.
#pragma once

#include <string>

#include "engine/value/value.hpp"

namespace omgdb::engine {

void append_key(std::string& out, const value& v, bool descending = false);
std::string encode_key(const value& v);

}  // namespace omgdb::engine
