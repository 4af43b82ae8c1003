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
package io.metaroce.datapath.settings;

import io.metaroce.datapath.congestion.CongestionControl;

/**
 * Chooses and makes the {@link CongestionControl} of each sender connection from its {@link ConnectionSettings}: the
 * congestion-control plug-in of a {@code TransportEngine.Context} (and of the media driver's context, which hands it
 * to its engines). {@link SenderPolicies#congestionControlSupplier()} is the default, which knows
 * {@link SenderPolicies#DELAY} and {@link SenderPolicies#AIMD}; a supplier of new controllers adds its own names and
 * usually delegates the others to it.
 * <p>
 * Contracts: {@link #knows(String)} depends on the name alone, never changes its answer, and may be called on any
 * thread (a driver validates a channel's {@code cc} with it on its conductor thread, and an engine a stream's settings
 * with it when the stream opens); {@link #newInstance} is called once per connection, on the thread of the engine
 * that runs the connection, and the engines that share a supplier may call it concurrently.
 */
public interface SenderCongestionControlSupplier
{
    /**
     * Does this supplier make a controller of this name? A stream whose settings name one it does not know is
     * refused when it opens, and a driver channel that names one is refused with {@code INVALID_CHANNEL}.
     *
     * @param name a name, not null.
     * @return true when {@link #newInstance} accepts connections whose settings give this name.
     */
    boolean knows(String name);

    /**
     * Make the controller of one connection once its SETUP_ACK fixed the mtu and the tracking window.
     *
     * @param connection    the connection's settings; its {@link ConnectionSettings#congestionControl()} is null (the
     *                      supplier's default) or a name {@link #knows(String)} accepted.
     * @param mtu           the negotiated largest datagram.
     * @param initialWindow starting window in bytes.
     * @param maxWindow     largest window in bytes (tracking window x mtu), at least mtu.
     * @return a new controller that keeps the contracts of {@link CongestionControl}, spraying over
     * {@link ConnectionSettings#planeCount()} planes.
     */
    CongestionControl newInstance(ConnectionSettings connection, int mtu, long initialWindow, long maxWindow);
}
