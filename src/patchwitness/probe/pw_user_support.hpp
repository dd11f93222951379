// patchwitness: the user's program's observations and the test macros it defines after the
// test file's last #include (cpp_user_program.py). PWNS is the namespace drawn per grade.
#include <cstdio>
#include <cstddef>
#include <exception>
#include <iterator>
#include <sstream>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
namespace PWNS {
struct sink {
  template <class T> sink& operator<<(const T&) { return *this; }
  sink& operator<<(std::ostream& (*)(std::ostream&)) { return *this; }
};
inline void say(const std::string& line) {
  std::string out = line + "\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}
// Assertions that did not hold in this case (each case runs in a child of its own): main's
// child exits with this program's drawn code, one more when any did not hold.
inline int& unheld() { static int count = 0; return count; }
inline bool kept(bool held) { if (!held) ++unheld(); return held; }
template <int N> struct rank : rank<N - 1> {};
template <> struct rank<0> {};
inline std::string show(bool b) { return b ? "true" : "false"; }
inline std::string show(std::nullptr_t) { return "null"; }
inline std::string show(const char* s) { return s ? "\"" + std::string(s) + "\"" : "null"; }
inline std::string show(char* s) { return show(static_cast<const char*>(s)); }
inline std::string show(const std::string& s) { return "\"" + s + "\""; }
template <class T> std::string show(T* p) { return p ? "(non-null)" : "null"; }
template <class T> std::string show(const T& v);
template <class T> auto shown(const T& v, rank<3>)
    -> decltype(typename std::enable_if<std::is_enum<T>::value, int>::type(), std::string()) {
  return std::to_string(static_cast<long long>(v));
}
template <class T> auto shown(const T& v, rank<2>)
    -> decltype(std::declval<std::ostream&>() << v, std::string()) {
  std::ostringstream o;
  o.precision(17);
  o << v;
  return o.str();
}
template <class T> auto shown(const T& v, rank<1>)
    -> decltype(std::begin(v), std::end(v), std::string()) {
  std::string out = "[";
  int n = 0;
  for (auto it = std::begin(v); it != std::end(v); ++it) {
    if (n) out += ", ";
    if (++n > 64) { out += "..."; break; }
    out += show(*it);
  }
  return out + "]";
}
template <class T> std::string shown(const T&, rank<0>) { return "(unprintable)"; }
template <class T> std::string show(const T& v) { return shown(v, rank<3>()); }
template <class Op, class A, class B>
bool compared(const char* what, const A& a, const B& b) {
  bool held = Op()(a, b);
  say(std::string(what) + " " + show(a) + " " + show(b) + " " + show(held));
  return held;
}
inline bool truth(const char* what, bool held) {
  say(std::string(what) + " " + show(held));
  return held;
}
inline bool strings(const char* what, const char* a, const char* b, bool equal) {
  say(std::string(what) + " " + show(a) + " " + show(b));
  return equal;
}
inline bool near(double a, double b, double eps) {
  say("near " + show(a) + " " + show(b) + " " + show(a - b <= eps && b - a <= eps));
  return a - b <= eps && b - a <= eps;
}
template <class E, class F> bool throws(F f) {
  try { f(); } catch (const E&) { say("threw the expected exception"); return true; }
  catch (const std::exception& e) { say(std::string("threw ") + typeid(e).name()); return false; }
  catch (...) { say("threw something else"); return false; }
  say("did not throw");
  return false;
}
template <class F> bool any_throw(F f) {
  try { f(); } catch (const std::exception& e) { say(std::string("threw ") + typeid(e).name()); return true; }
  catch (...) { say("threw something else"); return true; }
  say("did not throw");
  return false;
}
}  // namespace PWNS
