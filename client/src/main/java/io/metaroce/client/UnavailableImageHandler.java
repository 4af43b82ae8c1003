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
package io.metaroce.client;

/**
 * Told when a publisher's image goes away from a subscription: the publisher closed and was drained, timed out, or
 * the subscription closed. Called on the client conductor's thread (or the thread that invokes the conductor); keep
 * it short and do not call back into the client from it.
 */
@FunctionalInterface
public interface UnavailableImageHandler
{
    /**
     * An image is no longer available.
     *
     * @param image that was removed from its subscription; it is closed.
     */
    void onUnavailableImage(Image image);
}
