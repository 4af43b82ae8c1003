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
package io.metaroce.driver;

import io.metaroce.codec.control.ControlErrorCode;

/**
 * A command the driver refuses: carries the typed error code and the message sent back in the ERROR event. Thrown
 * and caught on the conductor's command path only, never on a data path.
 */
final class ControlProtocolException extends RuntimeException
{
    private static final long serialVersionUID = -4287013645120965235L;

    private final ControlErrorCode code;

    ControlProtocolException(final ControlErrorCode code, final String message)
    {
        super(message, null, false, false);
        this.code = code;
    }

    ControlErrorCode code()
    {
        return code;
    }
}
