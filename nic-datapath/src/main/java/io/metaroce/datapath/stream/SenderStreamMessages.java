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

import io.metaroce.codec.wire.CloseReason;

/**
 * The messages the {@link SenderStreamLifecycle} sends for its streams, through the connection's encoder: the
 * STREAM_OPEN and STREAM_CLOSE of a stream and the planes their retries take. Defined beside the lifecycle so that it
 * does not depend on the connection's encoder. Called on the engine's thread.
 */
public interface SenderStreamMessages
{
    /**
     * The plane a control message that answers nothing goes on, one the path table does not know to be down.
     *
     * @return the plane index.
     */
    int controlPlane();

    /**
     * The plane after this one that is not down, for the retry of a message a plane may have lost.
     *
     * @param plane the plane the last transmission took.
     * @return the next plane up, or {@code plane} again when every other is down.
     */
    int nextPlaneUp(int plane);

    /**
     * Send a STREAM_OPEN of a stream on a plane: it opens the stream, or asks for its window again.
     *
     * @param stream the stream.
     * @param plane  the plane.
     * @param nowNs  the engine's clock.
     */
    void streamOpen(SenderStream stream, int plane, long nowNs);

    /**
     * Send a STREAM_CLOSE of a stream on a plane.
     *
     * @param stream        the stream.
     * @param plane         the plane.
     * @param reason        why the stream ends.
     * @param finalPosition the stream's final position.
     * @param nowNs         the engine's clock.
     */
    void streamClose(SenderStream stream, int plane, CloseReason reason, long finalPosition, long nowNs);
}
