import { z } from 'zod';
import { zId, zText } from '../../domain/validation.js';
import { zRowId, zTimestamp } from '../openapi.js';

export const CreateTeamSchema = z.strictObject({ name: zText(100, 1), description: zText(2000).optional() });
export const UpdateTeamSchema = CreateTeamSchema.partial();
export const MemberSchema = z.strictObject({ user_id: zId });

/** A team as the API answers it (SPEC B3). */
export const TeamSchema = z
  .strictObject({
    id: zRowId,
    name: z.string(),
    description: z.string(),
    members: z.array(zRowId).describe('User ids'),
    created_at: zTimestamp,
    updated_at: zTimestamp,
  })
  .meta({ id: 'Team' });
export const MembershipSchema = z
  .strictObject({ team_id: zRowId, user_id: zRowId, created_at: zTimestamp })
  .meta({ id: 'Membership' });
