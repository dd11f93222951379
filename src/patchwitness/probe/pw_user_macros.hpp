// patchwitness: the test macros of the user's program (cpp_user_program.py), after either
// support: the printing one (pw_user_support.hpp) or the bare one (pw_user_bare.hpp).
namespace PWNS {
// The comparisons and the C strings' equality, alike in either support.
struct eq { template <class A, class B> bool operator()(const A& a, const B& b) const { return a == b; } };
struct ne { template <class A, class B> bool operator()(const A& a, const B& b) const { return a != b; } };
struct lt { template <class A, class B> bool operator()(const A& a, const B& b) const { return a < b; } };
struct le { template <class A, class B> bool operator()(const A& a, const B& b) const { return a <= b; } };
struct gt { template <class A, class B> bool operator()(const A& a, const B& b) const { return a > b; } };
struct ge { template <class A, class B> bool operator()(const A& a, const B& b) const { return a >= b; } };
inline bool same_text(const char* a, const char* b) {
  if (a == nullptr || b == nullptr) return a == b;
  while (*a != 0 && *a == *b) { ++a; ++b; }
  return *a == *b;
}
}  // namespace PWNS
// A fixture's base, where the framework's is not there: what a TEST_F's class may call.
#if !defined(GOOGLETEST_INCLUDE_GTEST_GTEST_H_) && !defined(GTEST_INCLUDE_GTEST_GTEST_H_)
namespace testing {
class Test {
 public:
  virtual ~Test() = default;
  static void SetUpTestSuite() {}
  static void TearDownTestSuite() {}
  static void SetUpTestCase() {}
  static void TearDownTestCase() {}
  static bool HasFailure() { return PWNS::unheld() > 0; }
  static bool HasFatalFailure() { return PWNS::unheld() > 0; }
  template <class K, class V> static void RecordProperty(const K&, const V&) {}

 protected:
  Test() = default;
  virtual void SetUp() {}
  virtual void TearDown() {}
};
}  // namespace testing
#endif
#define PW_CHECK_(held) if (!PWNS::kept(held)) return; else PWNS::sink()
#define PW_NOTE_(held) if (PWNS::kept(held), true) ; else PWNS::sink()
#define EXPECT_TRUE(c) PW_NOTE_(PWNS::truth("true", static_cast<bool>(c)))
#define EXPECT_FALSE(c) PW_NOTE_(PWNS::truth("false", !static_cast<bool>(c)))
#define ASSERT_TRUE(c) PW_CHECK_(PWNS::truth("true", static_cast<bool>(c)))
#define ASSERT_FALSE(c) PW_CHECK_(PWNS::truth("false", !static_cast<bool>(c)))
#define EXPECT_EQ(a, b) PW_NOTE_(PWNS::compared<PWNS::eq>("eq", a, b))
#define EXPECT_NE(a, b) PW_NOTE_(PWNS::compared<PWNS::ne>("ne", a, b))
#define EXPECT_LT(a, b) PW_NOTE_(PWNS::compared<PWNS::lt>("lt", a, b))
#define EXPECT_LE(a, b) PW_NOTE_(PWNS::compared<PWNS::le>("le", a, b))
#define EXPECT_GT(a, b) PW_NOTE_(PWNS::compared<PWNS::gt>("gt", a, b))
#define EXPECT_GE(a, b) PW_NOTE_(PWNS::compared<PWNS::ge>("ge", a, b))
#define ASSERT_EQ(a, b) PW_CHECK_(PWNS::compared<PWNS::eq>("eq", a, b))
#define ASSERT_NE(a, b) PW_CHECK_(PWNS::compared<PWNS::ne>("ne", a, b))
#define ASSERT_LT(a, b) PW_CHECK_(PWNS::compared<PWNS::lt>("lt", a, b))
#define ASSERT_LE(a, b) PW_CHECK_(PWNS::compared<PWNS::le>("le", a, b))
#define ASSERT_GT(a, b) PW_CHECK_(PWNS::compared<PWNS::gt>("gt", a, b))
#define ASSERT_GE(a, b) PW_CHECK_(PWNS::compared<PWNS::ge>("ge", a, b))
#define EXPECT_FLOAT_EQ(a, b) EXPECT_EQ(a, b)
#define EXPECT_DOUBLE_EQ(a, b) EXPECT_EQ(a, b)
#define ASSERT_FLOAT_EQ(a, b) ASSERT_EQ(a, b)
#define ASSERT_DOUBLE_EQ(a, b) ASSERT_EQ(a, b)
#define EXPECT_NEAR(a, b, e) PW_NOTE_(PWNS::near(a, b, e))
#define ASSERT_NEAR(a, b, e) PW_CHECK_(PWNS::near(a, b, e))
#define EXPECT_STREQ(a, b) PW_NOTE_(PWNS::strings("streq", a, b, PWNS::same_text(a, b)))
#define EXPECT_STRNE(a, b) PW_NOTE_(PWNS::strings("strne", a, b, !PWNS::same_text(a, b)))
#define ASSERT_STREQ(a, b) PW_CHECK_(PWNS::strings("streq", a, b, PWNS::same_text(a, b)))
#define ASSERT_STRNE(a, b) PW_CHECK_(PWNS::strings("strne", a, b, !PWNS::same_text(a, b)))
#define EXPECT_THROW(s, E) PW_NOTE_(PWNS::throws<E>([&]() { s; }))
#define ASSERT_THROW(s, E) PW_CHECK_(PWNS::throws<E>([&]() { s; }))
#define EXPECT_ANY_THROW(s) PW_NOTE_(PWNS::any_throw([&]() { s; }))
#define ASSERT_ANY_THROW(s) PW_CHECK_(PWNS::any_throw([&]() { s; }))
#define EXPECT_NO_THROW(s) PW_NOTE_(!PWNS::any_throw([&]() { s; }))
#define ASSERT_NO_THROW(s) PW_CHECK_(!PWNS::any_throw([&]() { s; }))
#define EXPECT_DEATH(s, r) PW_NOTE_(PWNS::truth("death (not run)", true))
#define ASSERT_DEATH(s, r) PW_NOTE_(PWNS::truth("death (not run)", true))
#define EXPECT_DEATH_IF_SUPPORTED(s, r) EXPECT_DEATH(s, r)
#define ASSERT_DEATH_IF_SUPPORTED(s, r) ASSERT_DEATH(s, r)
#define SUCCEED() PWNS::sink()
#define ADD_FAILURE() PW_NOTE_(PWNS::truth("failure", false))
#define FAIL() PW_CHECK_(PWNS::truth("fail", false))
#define GTEST_SKIP() if (true) return; else PWNS::sink()
#define SCOPED_TRACE(m) ((void)0)
