// The one translation unit that compiles Asio and Beast (BOOST_*_SEPARATE_COMPILATION):
// every other file includes only their declarations and links this library.
#include <boost/asio/impl/src.hpp>
#include <boost/beast/src.hpp>
#include <boost/asio/ssl/impl/src.hpp>
