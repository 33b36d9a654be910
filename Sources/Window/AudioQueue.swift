import CSDL2
import Foundation
import Threads

/// The window's audio device, fed by queueing (SDL_QueueAudio) rather than a callback, and the
/// audio clock read from it. Opened and closed on the window thread; queued to, paused and read
/// from the player's thread — SDL's queue functions lock the device themselves, and `state`'s
/// lock keeps the device id, the sample count and the close ordered.
final class AudioQueue: Sendable {
    /// The device and what was queued to it.
    private struct State {
        var device: SDL_AudioDeviceID = 0
        var rate = 0
        var channels = 0
        /// Sample frames handed to SDL, less those cleared before they played.
        var framesQueued: Int64 = 0
        /// Sample frames the device takes from the queue at a time (its buffer).
        var bufferFrames: Int64 = 1024
        var interleaved: [Float] = []
        var driverName: String?
    }
    private let state = Locked(State())

    /// Opens the default audio device for 32-bit float `channels` at `rate`, falling back to SDL's
    /// dummy driver (which plays into nothing, in real time) when no device opens. Window thread
    /// only, after SDL_Init. Returns false when not even the dummy driver opens.
    func open(rate: Int, channels: Int) -> Bool {
        guard rate > 0, (1...8).contains(channels) else { return false }
        var id = openDevice(rate: rate, channels: channels)
        if id.id == 0 {
            // SDL_AUDIODRIVER, set as a hint: SDL reads it at audio init like the environment
            // variable of the same name, without a setenv racing other threads' getenv. Override
            // priority wins over an environment value that named a driver which just failed.
            SDL_SetHintWithPriority(SDL_HINT_AUDIODRIVER, "dummy", SDL_HINT_OVERRIDE)
            id = openDevice(rate: rate, channels: channels)
            _ = SDL_ResetHint(SDL_HINT_AUDIODRIVER)
        }
        guard id.id != 0 else { return false }
        SDL_PauseAudioDevice(id.id, 0)
        state.withLock { s in
            s.device = id.id
            s.bufferFrames = Int64(max(id.samples, 256))
            s.rate = rate
            s.channels = channels
            s.framesQueued = 0
            s.driverName = SDL_GetCurrentAudioDriver().map { String(cString: $0) }
        }
        return true
    }

    /// The device opened (0 when none) and the frames of its buffer.
    private func openDevice(rate: Int, channels: Int) -> (id: SDL_AudioDeviceID, samples: Int) {
        guard SDL_InitSubSystem(SDL_INIT_AUDIO) == 0 else { return (0, 0) }
        var want = SDL_AudioSpec()
        want.freq = Int32(rate)
        want.format = interlude_sdl_audio_f32sys()
        want.channels = UInt8(channels)
        want.samples = 1024
        want.callback = nil   // queued audio
        var have = SDL_AudioSpec()
        // No allowed changes: SDL converts to whatever the device wants, so the queue's bytes are
        // always float32 × `channels`.
        let id = SDL_OpenAudioDevice(nil, 0, &want, &have, 0)
        if id == 0 { SDL_QuitSubSystem(SDL_INIT_AUDIO) }
        return (id, Int(have.samples))
    }

    /// Closes the device. Window thread only, before SDL_Quit. Safe to call when not open.
    func close() {
        state.withLock { s in
            guard s.device != 0 else { return }
            SDL_CloseAudioDevice(s.device)
            s.device = 0
        }
    }

    /// Whether a device is open.
    var isOpen: Bool {
        state.withLock { $0.device != 0 }
    }

    /// The SDL audio driver in use ("pulseaudio", "alsa", "dummy"...), nil when closed.
    var driver: String? {
        state.withLock { $0.device != 0 ? $0.driverName : nil }
    }

    /// Interleaves `count` samples of each planar channel and queues them. Does nothing when no
    /// device is open.
    func queue(_ planar: [[Float]], count: Int) throws {
        try state.withLock { s throws in
            guard s.device != 0, count > 0 else { return }
            let n = s.channels
            guard planar.count >= n, planar.prefix(n).allSatisfy({ $0.count >= count }) else {
                throw WindowError.unexpectedInput("audio of \(planar.count) channel(s) for a \(n)-channel window, or fewer than \(count) samples")
            }
            if s.interleaved.count < count * n { s.interleaved = [Float](repeating: 0, count: count * n) }
            s.interleaved.withUnsafeMutableBufferPointer { out in
                for c in 0..<n {
                    planar[c].withUnsafeBufferPointer { src in
                        for i in 0..<count { out[i * n + c] = src[i] }
                    }
                }
            }
            let device = s.device
            let status = s.interleaved.withUnsafeBytes { raw in
                SDL_QueueAudio(device, raw.baseAddress, UInt32(count * n * MemoryLayout<Float>.size))
            }
            guard status == 0 else {
                throw WindowError.unexpectedInput("SDL_QueueAudio failed: \(String(cString: SDL_GetError()))")
            }
            s.framesQueued += Int64(count)
        }
    }

    /// Seconds of audio played so far, as the master clock counts them: frames queued minus frames
    /// still waiting in SDL's queue, except that up to two device buffers of the waiting frames
    /// count as played. The player queues each frame's audio with its picture and waits for this
    /// clock before the next picture, so that is how much audio stays queued ahead: without it the
    /// player waited for the queue to run dry, the device played silence between frames, and
    /// playback ran at about 0.8x speed (far slower after a pause). It runs ahead of the
    /// loudspeaker by at most three device buffers plus the driver's latency. Nil when no device
    /// is open.
    var clock: Double? {
        state.withLock { s in
            guard s.device != 0 else { return nil }
            let waiting = Int64(SDL_GetQueuedAudioSize(s.device)) / Int64(s.channels * MemoryLayout<Float>.size)
            return Double(max(s.framesQueued - max(waiting - 2 * s.bufferFrames, 0), 0)) / Double(s.rate)
        }
    }

    /// Pauses or resumes the device: paused, it plays silence and takes nothing from the queue.
    func setPaused(_ paused: Bool) {
        state.withLock { s in
            guard s.device != 0 else { return }
            SDL_PauseAudioDevice(s.device, paused ? 1 : 0)
        }
    }

    /// Drops the audio queued but not played yet (for a seek). The clock keeps what was played.
    func clear() {
        state.withLock { s in
            guard s.device != 0 else { return }
            // Locking the device keeps its thread from taking from the queue between the two calls,
            // so the frames counted as dropped are exactly those cleared.
            SDL_LockAudioDevice(s.device)
            let waiting = Int64(SDL_GetQueuedAudioSize(s.device)) / Int64(s.channels * MemoryLayout<Float>.size)
            SDL_ClearQueuedAudio(s.device)
            SDL_UnlockAudioDevice(s.device)
            s.framesQueued -= waiting
        }
    }
}
