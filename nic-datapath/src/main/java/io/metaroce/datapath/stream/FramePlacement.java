/*
 * Copyright 2026 the MetaRoCE authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 * https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package io.metaroce.datapath.stream;

import org.agrona.DirectBuffer;

/**
 * Where a receiver connection places the stream it receives: the driver implements it over an image's log buffer,
 * the simulation over an in-memory term log. DATA arrives out of order and is placed at its own (termId, termOffset)
 * as it arrives; subscribers consume only the contiguous prefix of complete frames, which gives in-order delivery.
 * <p>
 * <b>Visibility contract.</b> {@link #place} must make each frame visible to subscribers only when all of its bytes
 * are in place: write every byte of the frame except its 4-byte frame length, then the frame length with a
 * <em>release</em> store. A subscriber reads the length with an <em>acquire</em> load and, when it is positive, may
 * read the whole frame. A PAD frame arrives as its 32-byte header only; placing its header (length last) is enough.
 * <p>
 * <b>Window.</b> The engine places nothing outside {@code [consumerPosition(), consumerPosition() + windowLength())}
 * and nothing beyond the end of a term; it checks before calling. {@link #consumerPosition()} is read with acquire
 * semantics (it is written by subscribers on other threads) and must be monotonic.
 * <p>
 * Called only on the thread that drives the engine; implementations must not allocate in {@link #place}.
 */
public interface FramePlacement
{
    /**
     * Place a run of whole frames.
     *
     * @param termId     term of the run.
     * @param termOffset offset of the run's first frame in the term.
     * @param buffer     holding the run (the received datagram).
     * @param offset     of the run in the buffer.
     * @param length     of the run: a multiple of 32 made of whole frames, a PAD frame header only as the last one.
     */
    void place(int termId, int termOffset, DirectBuffer buffer, int offset, int length);

    /**
     * Position of the slowest subscriber of the image: bytes before it are consumed and their space can be reused.
     *
     * @return a stream position.
     */
    long consumerPosition();

    /**
     * How far beyond {@link #consumerPosition()} the image can hold placed data.
     *
     * @return the window in bytes, at most the term length.
     */
    int windowLength();
}
