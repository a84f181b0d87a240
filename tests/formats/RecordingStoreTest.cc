// RecordingStore on a temporary root: environment lookup, ids, latest, list, resolve and removal.
#include "TestRecordings.h"

#include "formats/Error.h"
#include "formats/RecordingStore.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

namespace hermit {
namespace {

using test::TemporaryDirectory;

class ScopedEnvironment {
public:
    ScopedEnvironment(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) {
            old_ = old;
        }
        if (value) {
            ::setenv(name, value, 1);
        } else {
            ::unsetenv(name);
        }
    }
    ~ScopedEnvironment() {
        if (old_) {
            ::setenv(name_, old_->c_str(), 1);
        } else {
            ::unsetenv(name_);
        }
    }

private:
    const char* name_;
    std::optional<std::string> old_;
};

ErrorCode code_of(const std::function<void()>& action) {
    try {
        action();
    } catch (const Error& error) {
        return error.code();
    }
    ADD_FAILURE() << "no hermit::Error thrown";
    return ErrorCode::UsageError;
}

std::string record(RecordingStore& store, const std::string& hint, int64_t started_at) {
    std::string id;
    auto directory = store.allocate(hint, id);
    test::write_recording(directory, test::every_kind_of_event(), id, started_at);
    store.mark_latest(id);
    return id;
}

TEST(RecordingStore, RootComesFromTheEnvironment) {
    {
        ScopedEnvironment data("HERMIT_DATA_DIR", "/srv/hermit");
        EXPECT_EQ(RecordingStore().root(), "/srv/hermit");
    }
    ScopedEnvironment data("HERMIT_DATA_DIR", nullptr);
    {
        ScopedEnvironment xdg("XDG_DATA_HOME", "/home/u/.data");
        EXPECT_EQ(RecordingStore().root(), "/home/u/.data/hermit/recordings");
    }
    ScopedEnvironment xdg("XDG_DATA_HOME", nullptr);
    ScopedEnvironment home("HOME", "/home/u");
    EXPECT_EQ(RecordingStore().root(), "/home/u/.local/share/hermit/recordings");
}

TEST(RecordingStore, IdsCountUpPerNameAndAreShellSafe) {
    TemporaryDirectory temporary;
    RecordingStore store(temporary.path() / "store");
    std::string id;
    store.allocate("/usr/bin/sort", id);
    EXPECT_EQ(id, "sort-1");
    store.allocate("sort", id);
    EXPECT_EQ(id, "sort-2");
    store.allocate("other", id);
    EXPECT_EQ(id, "other-1");
    store.allocate("we ird$name", id);
    EXPECT_EQ(id, "we_ird_name-1");
    store.allocate("", id);
    EXPECT_EQ(id, "recording-1");
    std::filesystem::create_directory(store.root() / "sort-9");
    store.allocate("sort", id);
    EXPECT_EQ(id, "sort-10");
}

TEST(RecordingStore, ListsOldestFirstWithSizesAndResolvesLatest) {
    TemporaryDirectory temporary;
    RecordingStore store(temporary.path() / "store");
    EXPECT_TRUE(store.list().empty());
    EXPECT_EQ(code_of([&] { store.resolve("latest"); }), ErrorCode::NoRecordings);

    const auto newer = record(store, "b", 2000);
    const auto older = record(store, "a", 1000);
    auto summaries = store.list();
    ASSERT_EQ(summaries.size(), 2u);
    EXPECT_EQ(summaries[0].meta.id, older);
    EXPECT_EQ(summaries[1].meta.id, newer);
    EXPECT_GT(summaries[0].size_bytes, 0u);
    EXPECT_TRUE(summaries[0].problem.empty());

    EXPECT_EQ(store.resolve("latest"), store.root() / older); // the last one marked
    EXPECT_EQ(store.resolve(newer), store.root() / newer);
    EXPECT_EQ(store.resolve((store.root() / newer).string()), store.root() / newer);
    EXPECT_EQ(code_of([&] { store.resolve("missing-1"); }), ErrorCode::RecordingNotFound);
    EXPECT_EQ(code_of([&] { store.resolve("/no/such/dir"); }), ErrorCode::RecordingNotFound);
}

TEST(RecordingStore, ListsDamagedRecordingsWithTheirProblem) {
    TemporaryDirectory temporary;
    RecordingStore store(temporary.path() / "store");
    record(store, "good", 1);
    std::filesystem::create_directories(store.root() / "broken-1");
    std::ofstream(store.root() / "broken-1" / "meta.capnp.bin") << "not capnp";
    auto summaries = store.list();
    ASSERT_EQ(summaries.size(), 2u);
    EXPECT_EQ(summaries[0].meta.id, "broken-1");
    EXPECT_NE(summaries[0].problem.find("E031"), std::string::npos) << summaries[0].problem;
}

TEST(RecordingStore, RemoveMovesLatestAndRemoveAllEmptiesTheStore) {
    TemporaryDirectory temporary;
    RecordingStore store(temporary.path() / "store");
    const auto first = record(store, "x", 1);
    const auto second = record(store, "x", 2);
    const auto third = record(store, "x", 3);
    store.remove("latest");
    EXPECT_FALSE(std::filesystem::exists(store.root() / third));
    EXPECT_EQ(store.resolve("latest"), store.root() / second);
    store.remove(first);
    EXPECT_EQ(store.list().size(), 1u);
    EXPECT_EQ(code_of([&] { store.remove(first); }), ErrorCode::RecordingNotFound);

    TemporaryDirectory elsewhere;
    test::write_recording(elsewhere.path() / "outside", {});
    EXPECT_EQ(code_of([&] { store.remove((elsewhere.path() / "outside").string()); }), ErrorCode::UsageError);

    record(store, "y", 4);
    std::ofstream(store.root() / "notes.txt") << "not a recording";
    EXPECT_EQ(store.remove_all(), 2u);
    EXPECT_TRUE(store.list().empty());
    EXPECT_FALSE(std::filesystem::is_symlink(store.root() / "latest"));
    EXPECT_TRUE(std::filesystem::exists(store.root() / "notes.txt"));
}

} // namespace
} // namespace hermit
