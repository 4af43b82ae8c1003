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
package io.metaroce.datapath.congestion;

/**
 * Makes the {@link CongestionControl} of a connection once its SETUP_ACK fixed the mtu and the tracking window. A
 * supplier carries the controller's tunables; it is called on the engine's thread, at establishment only. The built-in
 * controllers offer one each ({@link DelayCongestionControl#supplier}, {@link AimdCongestionControl#supplier}); the
 * engine context's {@link io.metaroce.datapath.settings.SenderCongestionControlSupplier} chooses among controllers by
 * the connection's settings.
 */
@FunctionalInterface
public interface CongestionControlSupplier
{
    /**
     * Make a controller for one connection.
     *
     * @param mtu           the negotiated largest datagram.
     * @param initialWindow starting window in bytes.
     * @param maxWindow     largest window in bytes (tracking window x mtu), at least mtu.
     * @param planeCount    planes the connection sprays over, at least 1.
     * @return a new controller.
     */
    CongestionControl newInstance(int mtu, long initialWindow, long maxWindow, int planeCount);
}
