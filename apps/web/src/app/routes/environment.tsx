import { useSearchParams } from 'react-router';
import { RadioGroup } from '../../components/RadioGroup';

/** The environment a list page shows, kept in the URL as `?is_uat=true` (as on /templates). */
export function useEnvironment(): [boolean, (isUat: boolean) => void] {
  const [params, setParams] = useSearchParams();
  const isUat = params.get('is_uat') === 'true';
  const set = (next: boolean) => setParams(next ? { is_uat: 'true' } : {});
  return [isUat, set];
}

export function EnvironmentSwitch({ isUat, onChange }: { isUat: boolean; onChange: (isUat: boolean) => void }) {
  return (
    <RadioGroup
      label="Environment"
      name="environment"
      value={isUat ? 'uat' : 'production'}
      options={[
        { value: 'production', label: 'Production' },
        { value: 'uat', label: 'UAT' },
      ]}
      onChange={(value) => onChange(value === 'uat')}
    />
  );
}
