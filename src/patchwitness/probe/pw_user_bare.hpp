// patchwitness: the bare support of a user's program (cpp_user_program.py): no #include, no
// printing. What the grader adds to a program of the project's headers alone must not complete a
// type the code under test can ask about (red team round 16: <sstream>, which the printing
// support includes, made std::basic_ostringstream complete). The count of assertions that did not
// hold lives in the main's own translation unit.
namespace PWNS {
int& unheld();
inline bool kept(bool held) { if (!held) ++unheld(); return held; }
struct sink {
  template <class T> sink& operator<<(const T&) { return *this; }
};
template <class Op, class A, class B>
bool compared(const char*, const A& a, const B& b) { return Op()(a, b); }
inline bool truth(const char*, bool held) { return held; }
inline bool strings(const char*, const char*, const char*, bool equal) { return equal; }
inline bool near(double a, double b, double eps) { return a - b <= eps && b - a <= eps; }
template <class E, class F> bool throws(F f) {
  try { f(); } catch (const E&) { return true; } catch (...) { return false; }
  return false;
}
template <class F> bool any_throw(F f) {
  try { f(); } catch (...) { return true; }
  return false;
}
}  // namespace PWNS
