// Earshot's whisper.cpp binding (issue 27): a small Node-API addon, statically linked with
// whisper.cpp and ggml (native/whisper/CMakeLists.txt, built by scripts/build-whisper.ts).
//
// JS surface (typed in src/ai/whispercpp/addon.ts):
//   version(): string                                  whisper.cpp's own version string
//   systemInfo(): string                               ggml's CPU features as compiled in
//   setVerbose(on: boolean): void                      whisper.cpp/ggml log lines to stderr, or none
//   load(path: string): Promise<Model>                 a context (weights in memory), loaded off the JS thread
//   isMultilingual(model): boolean
//   langId(code: string): number                       -1 for a language whisper.cpp does not know
//   transcribe(model, pcm: Float32Array, {language, translate, threads})
//       : Promise<{language: string | null, segments: [{start_s, end_s, text}]}>
//   free(model): void                                  releases the weights once no call runs on them
//
// whisper_full runs on libuv's/Bun's thread pool (napi async work), so the calling thread's event
// loop keeps serving messages. Calls on one model are serialized by its mutex (one whisper_state
// per context). The model's memory is released when free() was called (or the handle was
// garbage-collected) AND no call still holds it (shared_ptr).
#include <node_api.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "whisper.h"

namespace {

bool g_verbose = false;

void log_callback(enum ggml_log_level /*level*/, const char* text, void* /*user*/) {
  // Quiet unless asked (EARSHOT_LOG_LEVEL=debug): whisper.cpp logs every load and every window.
  if (g_verbose) fputs(text, stderr);
}

struct Model {
  whisper_context* ctx = nullptr;
  std::mutex mu;
  ~Model() {
    if (ctx != nullptr) whisper_free(ctx);
  }
};

// What JS holds: a shared reference, emptied by free().
struct Handle {
  std::shared_ptr<Model> model;
};

struct Segment {
  double start_s;
  double end_s;
  std::string text;
};

#define CHECK(env, call)                                       \
  do {                                                         \
    if ((call) != napi_ok) {                                   \
      napi_throw_error((env), nullptr, "whisper addon: " #call); \
      return nullptr;                                          \
    }                                                          \
  } while (0)

std::string string_arg(napi_env env, napi_value value, bool* ok) {
  size_t len = 0;
  *ok = napi_get_value_string_utf8(env, value, nullptr, 0, &len) == napi_ok;
  if (!*ok) return "";
  std::string out(len, '\0');
  napi_get_value_string_utf8(env, value, out.data(), len + 1, &len);
  return out;
}

void finalize_handle(napi_env /*env*/, void* data, void* /*hint*/) { delete static_cast<Handle*>(data); }

Handle* handle_arg(napi_env env, napi_value value) {
  void* data = nullptr;
  napi_valuetype type;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_external) return nullptr;
  if (napi_get_value_external(env, value, &data) != napi_ok) return nullptr;
  return static_cast<Handle*>(data);
}

napi_value make_string(napi_env env, const std::string& s) {
  napi_value out;
  napi_create_string_utf8(env, s.data(), s.size(), &out);
  return out;
}

napi_value reject_with(napi_env env, napi_deferred deferred, const std::string& message) {
  napi_value msg, err;
  napi_create_string_utf8(env, message.data(), message.size(), &msg);
  napi_create_error(env, nullptr, msg, &err);
  napi_reject_deferred(env, deferred, err);
  return nullptr;
}

// ---- load ----

struct LoadJob {
  napi_async_work work = nullptr;
  napi_deferred deferred = nullptr;
  std::string path;
  whisper_context* ctx = nullptr;
  std::string error;
};

void load_execute(napi_env /*env*/, void* data) {
  auto* job = static_cast<LoadJob*>(data);
  whisper_context_params params = whisper_context_default_params();
  params.use_gpu = false;
  try {
    job->ctx = whisper_init_from_file_with_params(job->path.c_str(), params);
  } catch (const std::exception& e) {
    job->error = e.what();
  }
  if (job->ctx == nullptr && job->error.empty()) job->error = "whisper.cpp could not load the model file";
}

void load_complete(napi_env env, napi_status /*status*/, void* data) {
  auto* job = static_cast<LoadJob*>(data);
  if (job->ctx == nullptr) {
    reject_with(env, job->deferred, job->error);
  } else {
    auto* handle = new Handle{std::make_shared<Model>()};
    handle->model->ctx = job->ctx;
    napi_value external;
    napi_create_external(env, handle, finalize_handle, nullptr, &external);
    napi_resolve_deferred(env, job->deferred, external);
  }
  napi_delete_async_work(env, job->work);
  delete job;
}

napi_value Load(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr));
  bool ok = false;
  std::string path = argc >= 1 ? string_arg(env, argv[0], &ok) : "";
  if (!ok) {
    napi_throw_type_error(env, nullptr, "load(path: string)");
    return nullptr;
  }
  auto* job = new LoadJob();
  job->path = path;
  napi_value promise, name;
  CHECK(env, napi_create_promise(env, &job->deferred, &promise));
  CHECK(env, napi_create_string_utf8(env, "whisper.load", NAPI_AUTO_LENGTH, &name));
  CHECK(env, napi_create_async_work(env, nullptr, name, load_execute, load_complete, job, &job->work));
  CHECK(env, napi_queue_async_work(env, job->work));
  return promise;
}

// ---- transcribe ----

struct TranscribeJob {
  napi_async_work work = nullptr;
  napi_deferred deferred = nullptr;
  std::shared_ptr<Model> model;
  std::vector<float> pcm;
  std::string language;  // "auto" to detect
  bool translate = false;
  int threads = 1;
  std::vector<Segment> segments;
  std::string detected;
  std::string error;
};

void transcribe_execute(napi_env /*env*/, void* data) {
  auto* job = static_cast<TranscribeJob*>(data);
  std::lock_guard<std::mutex> lock(job->model->mu);
  whisper_context* ctx = job->model->ctx;
  // whisper_full's defaults: greedy decoding with temperature fallback, segment timestamps from
  // timestamp tokens, token timestamps off, no initial prompt. One change: no window's text is
  // carried into the next window's prompt (n_max_text_ctx 0, the CLI's `-mc 0`), as the
  // transformers.js engine does; a carried prompt lets one hallucinated window repeat itself
  // (docs/decisions/asr-engine.md).
  whisper_full_params params = whisper_full_default_params(WHISPER_SAMPLING_GREEDY);
  params.n_max_text_ctx = 0;
  // One decoder, as the transformers.js engine (greedy only) and `whisper-cli -bo 1`: the default 5
  // allocates five KV caches per model (memory) and samples five candidates on each temperature
  // fallback (time), for a quality gain the other engine does not have either.
  params.greedy.best_of = 1;
  params.n_threads = job->threads;
  params.language = job->language.c_str();
  params.translate = job->translate;
  params.print_progress = false;
  params.print_realtime = false;
  params.print_timestamps = false;
  params.print_special = false;
  params.token_timestamps = false;
  try {
    if (whisper_full(ctx, params, job->pcm.data(), static_cast<int>(job->pcm.size())) != 0) {
      job->error = "whisper.cpp failed to transcribe the audio";
      return;
    }
    if (g_verbose) whisper_print_timings(ctx);
    const int n = whisper_full_n_segments(ctx);
    for (int i = 0; i < n; ++i) {
      // t0/t1 are in centiseconds (10 ms) from the start of the given audio.
      job->segments.push_back({whisper_full_get_segment_t0(ctx, i) / 100.0, whisper_full_get_segment_t1(ctx, i) / 100.0,
                               whisper_full_get_segment_text(ctx, i)});
    }
    const int lang = whisper_full_lang_id(ctx);
    const char* code = lang >= 0 ? whisper_lang_str(lang) : nullptr;
    if (code != nullptr) job->detected = code;
  } catch (const std::exception& e) {
    job->error = e.what();
  }
}

void transcribe_complete(napi_env env, napi_status /*status*/, void* data) {
  auto* job = static_cast<TranscribeJob*>(data);
  if (!job->error.empty()) {
    reject_with(env, job->deferred, job->error);
  } else {
    napi_value result, list, lang;
    napi_create_object(env, &result);
    napi_create_array_with_length(env, job->segments.size(), &list);
    for (size_t i = 0; i < job->segments.size(); ++i) {
      napi_value seg, start, end;
      napi_create_object(env, &seg);
      napi_create_double(env, job->segments[i].start_s, &start);
      napi_create_double(env, job->segments[i].end_s, &end);
      napi_set_named_property(env, seg, "start_s", start);
      napi_set_named_property(env, seg, "end_s", end);
      napi_set_named_property(env, seg, "text", make_string(env, job->segments[i].text));
      napi_set_element(env, list, static_cast<uint32_t>(i), seg);
    }
    if (job->detected.empty()) {
      napi_get_null(env, &lang);
    } else {
      lang = make_string(env, job->detected);
    }
    napi_set_named_property(env, result, "language", lang);
    napi_set_named_property(env, result, "segments", list);
    napi_resolve_deferred(env, job->deferred, result);
  }
  napi_delete_async_work(env, job->work);
  delete job;
}

bool get_property(napi_env env, napi_value obj, const char* key, napi_valuetype want, napi_value* out) {
  bool has = false;
  if (napi_has_named_property(env, obj, key, &has) != napi_ok || !has) return false;
  if (napi_get_named_property(env, obj, key, out) != napi_ok) return false;
  napi_valuetype type;
  return napi_typeof(env, *out, &type) == napi_ok && type == want;
}

napi_value Transcribe(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr));
  Handle* handle = argc >= 1 ? handle_arg(env, argv[0]) : nullptr;
  bool is_typed = false;
  if (argc >= 2) napi_is_typedarray(env, argv[1], &is_typed);
  napi_valuetype opts_type = napi_undefined;
  if (argc >= 3) napi_typeof(env, argv[2], &opts_type);
  if (handle == nullptr || !is_typed || opts_type != napi_object) {
    napi_throw_type_error(env, nullptr, "transcribe(model, pcm: Float32Array, options: object)");
    return nullptr;
  }
  napi_typedarray_type type;
  size_t length = 0;
  void* samples = nullptr;
  CHECK(env, napi_get_typedarray_info(env, argv[1], &type, &length, &samples, nullptr, nullptr));
  if (type != napi_float32_array) {
    napi_throw_type_error(env, nullptr, "transcribe: pcm must be a Float32Array (16 kHz mono)");
    return nullptr;
  }
  auto* job = new TranscribeJob();
  napi_value promise, name, value;
  CHECK(env, napi_create_promise(env, &job->deferred, &promise));
  if (!handle->model) {
    reject_with(env, job->deferred, "the whisper.cpp model was freed");
    delete job;
    return promise;
  }
  job->model = handle->model;
  // A copy: the JS buffer may be reused or collected while the work runs on another thread.
  job->pcm.assign(static_cast<float*>(samples), static_cast<float*>(samples) + length);
  bool ok = true;
  job->language = get_property(env, argv[2], "language", napi_string, &value) ? string_arg(env, value, &ok) : "auto";
  if (get_property(env, argv[2], "translate", napi_boolean, &value)) napi_get_value_bool(env, value, &job->translate);
  if (get_property(env, argv[2], "threads", napi_number, &value)) {
    int32_t threads = 1;
    napi_get_value_int32(env, value, &threads);
    job->threads = threads < 1 ? 1 : threads;
  }
  CHECK(env, napi_create_string_utf8(env, "whisper.transcribe", NAPI_AUTO_LENGTH, &name));
  CHECK(env, napi_create_async_work(env, nullptr, name, transcribe_execute, transcribe_complete, job, &job->work));
  CHECK(env, napi_queue_async_work(env, job->work));
  return promise;
}

// ---- small synchronous calls ----

napi_value Free(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr));
  Handle* handle = argc >= 1 ? handle_arg(env, argv[0]) : nullptr;
  if (handle != nullptr) handle->model.reset();  // a running call keeps its own reference
  return nullptr;
}

napi_value IsMultilingual(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], out;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr));
  Handle* handle = argc >= 1 ? handle_arg(env, argv[0]) : nullptr;
  if (handle == nullptr || !handle->model) {
    napi_throw_error(env, nullptr, "isMultilingual: no loaded model");
    return nullptr;
  }
  CHECK(env, napi_get_boolean(env, whisper_is_multilingual(handle->model->ctx) != 0, &out));
  return out;
}

napi_value LangId(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], out;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr));
  bool ok = false;
  std::string code = argc >= 1 ? string_arg(env, argv[0], &ok) : "";
  CHECK(env, napi_create_int32(env, ok ? whisper_lang_id(code.c_str()) : -1, &out));
  return out;
}

napi_value SetVerbose(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr));
  bool on = false;
  if (argc >= 1) napi_get_value_bool(env, argv[0], &on);
  g_verbose = on;
  return nullptr;
}

napi_value Version(napi_env env, napi_callback_info /*info*/) { return make_string(env, whisper_version()); }

napi_value SystemInfo(napi_env env, napi_callback_info /*info*/) { return make_string(env, whisper_print_system_info()); }

}  // namespace

NAPI_MODULE_INIT() {
  whisper_log_set(log_callback, nullptr);
  const napi_property_descriptor props[] = {
      {"load", nullptr, Load, nullptr, nullptr, nullptr, napi_enumerable, nullptr},
      {"transcribe", nullptr, Transcribe, nullptr, nullptr, nullptr, napi_enumerable, nullptr},
      {"free", nullptr, Free, nullptr, nullptr, nullptr, napi_enumerable, nullptr},
      {"isMultilingual", nullptr, IsMultilingual, nullptr, nullptr, nullptr, napi_enumerable, nullptr},
      {"langId", nullptr, LangId, nullptr, nullptr, nullptr, napi_enumerable, nullptr},
      {"setVerbose", nullptr, SetVerbose, nullptr, nullptr, nullptr, napi_enumerable, nullptr},
      {"version", nullptr, Version, nullptr, nullptr, nullptr, napi_enumerable, nullptr},
      {"systemInfo", nullptr, SystemInfo, nullptr, nullptr, nullptr, napi_enumerable, nullptr},
  };
  napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props);
  return exports;
}
